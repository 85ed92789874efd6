package io.pekquitto.ops;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.auth.ReloadableSecurity;
import io.pekquitto.auth.Security;
import io.pekquitto.shards.Broker;
import io.pekquitto.shards.ShardCounts;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * A running broker in its own actor system: the standalone entry point behind {@code Main} and the
 * simplest way to embed pekquitto. Teams with their own {@code ActorSystem} spawn
 * {@link Broker#create(BrokerSettings, Security)} instead, with {@link Broker#dispatcherConfig(int)} in its
 * config.
 */
public final class Pekquitto implements AutoCloseable {
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final ActorSystem<Broker.Command> system;
    private final List<InetSocketAddress> boundAddresses;
    private final ShardCounts counts;
    /** What {@link #reload} swaps: the password and ACL files (when started from them), each listener's TLS. */
    private final Optional<ReloadableSecurity> fileSecurity;
    private final List<Optional<ReloadableTls>> tls;

    private Pekquitto(ActorSystem<Broker.Command> system, Broker.Bound bound, Optional<ReloadableSecurity> fileSecurity) {
        this.system = system;
        this.boundAddresses = bound.addresses();
        this.counts = bound.counts();
        this.fileSecurity = fileSecurity;
        this.tls = bound.tls();
    }

    /**
     * Starts the broker with the password and ACL files of {@code settings.auth()} and returns once every
     * listener is bound.
     *
     * @throws IllegalStateException    if a listener cannot be bound or its TLS files cannot be used (the
     *                                  message names the listener and the file)
     * @throws IllegalArgumentException if a password or ACL file cannot be read (the message names the
     *                                  file and the line)
     */
    public static Pekquitto start(BrokerSettings settings) {
        var files = new ReloadableSecurity(settings.auth().readSecurity());
        return start(settings, files.security(), UnaryOperator.identity(), Optional.of(files));
    }

    /**
     * Starts the broker with an embedder's own {@code security} (its {@code auth} settings unused) and
     * returns once every listener is bound.
     */
    public static Pekquitto start(BrokerSettings settings, Security security) {
        return start(settings, security, UnaryOperator.identity());
    }

    /** Starts the broker with each shard's behaviour wrapped by {@code aroundShard} (see {@link Broker#create}). */
    public static Pekquitto start(BrokerSettings settings, Security security,
                                  UnaryOperator<Behavior<ShardMessage>> aroundShard) {
        return start(settings, security, aroundShard, Optional.empty());
    }

    private static Pekquitto start(BrokerSettings settings, Security security,
                                   UnaryOperator<Behavior<ShardMessage>> aroundShard,
                                   Optional<ReloadableSecurity> fileSecurity) {
        var config = Broker.dispatcherConfig(settings.shards()).withFallback(ConfigLoader.actorSystemConfig());
        if (settings.shards() == 1) {
            // Pekko's TCP connection actors on the shard's own thread: a read or a write no longer hops
            // threads between them and the shard (measured: QoS 1 p50 283 -> 193 us, QoS 0 fan-in
            // +40%). With more shards they stay on Pekko's dispatcher, shared by all shards. Only in
            // our own actor system: an embedder's other TCP users must not run on a shard's thread.
            config = ConfigFactory.parseMap(Map.of("pekko.io.tcp.worker-dispatcher", Broker.dispatcherPath(0)))
                    .withFallback(config);
        }
        var system = ActorSystem.create(Broker.create(settings, security, aroundShard), "pekquitto", config);
        try {
            var bound = AskPattern.<Broker.Command, Broker.Bound>ask(
                            system, Broker.GetBoundAddresses::new, BIND_TIMEOUT, system.scheduler())
                    .toCompletableFuture()
                    .get(BIND_TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS);
            if (bound.failure().isPresent()) throw new IllegalStateException(bound.failure().get());
            return new Pekquitto(system, bound, fileSecurity);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(system);
            throw new IllegalStateException("interrupted while starting", e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            stop(system);
            if (e instanceof IllegalStateException ise) throw ise;
            throw new IllegalStateException("broker did not start: " + e.getMessage(), e);
        }
    }

    /** The bound address of each listener, in configuration order (port 0 resolved). */
    public List<InetSocketAddress> boundAddresses() {
        return boundAddresses;
    }

    /** The bound port of the first listener. */
    public int port() {
        return boundAddresses.get(0).getPort();
    }

    /** Connections per shard, live and parked. */
    public ShardCounts counts() {
        return counts;
    }

    /**
     * Reads again what can change without a restart and swaps it in, all of it or nothing: the password
     * and ACL files of {@code settings.auth()} (for a broker started with {@link #start(BrokerSettings)};
     * an embedder's own {@code Security} is its own to change) and the certificate, key and CA files of
     * each TLS listener, from listener {@code i}'s {@code tls} section in {@code settings}. New CONNECTs
     * and new TLS connections get what was read; connected clients stay connected, their next PUBLISH and
     * SUBSCRIBE judged by the new ACL. Other changes in {@code settings} are not applied.
     *
     * @return what was reloaded, a phrase each (for a log line)
     * @throws IllegalArgumentException naming the file that could not be read and why; nothing changed
     */
    public synchronized List<String> reload(BrokerSettings settings) {
        return Reload.apply(settings, fileSecurity, tls, boundAddresses);
    }

    /** The broker's actor system: the guardian is the Broker, shards are its children {@code shard-N}. */
    public ActorSystem<Broker.Command> actorSystem() {
        return system;
    }

    /** Blocks until the broker has stopped (for {@code Main}). */
    public void awaitTermination() {
        system.getWhenTerminated().toCompletableFuture().join();
    }

    /** Stops the broker: listeners unbound, connections closed, the actor system terminated. */
    @Override
    public void close() {
        stop(system);
    }

    private static void stop(ActorSystem<?> system) {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("broker did not stop within " + STOP_TIMEOUT, e);
        }
    }
}
