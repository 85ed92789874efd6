package io.pekquitto.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.pekquitto.auth.ReloadableSecurity;
import io.pekquitto.auth.Security;
import io.pekquitto.cluster.ClusterMember;
import io.pekquitto.ops.fatal.HaltOnFatalError;
import io.pekquitto.shards.broker.Broker;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.shard.ShardCounts;
import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.SysExtras;
import io.pekquitto.shards.store.Store;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * A running broker in its own actor system: the standalone entry point behind {@code Main} and the
 * simplest way to embed pekquitto. Teams with their own {@code ActorSystem} spawn
 * {@link Broker#create(BrokerSettings, Security)} instead (README, "Embedding pekquitto"): the shard
 * dispatchers their configuration lacks are registered then, as {@link Broker#dispatcherConfig(int)}
 * describes them.
 */
public final class Pekquitto implements AutoCloseable {
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(30);
    /** Past the shutdown timeout: what the actor system needs to end once the broker has stopped. */
    private static final Duration STOP_MARGIN = Duration.ofSeconds(5);
    private static final Duration FIGURES_TIMEOUT = Duration.ofSeconds(3);

    private final ActorSystem<BrokerCommand> system;
    private final List<InetSocketAddress> boundAddresses;
    private final ShardCounts counts;
    private final Duration stopTimeout;
    private final Optional<Metrics> metrics;
    private Optional<InetSocketAddress> metricsAddress = Optional.empty();
    /** What {@link #reload} swaps: the password and ACL files (when started from them), each listener's TLS. */
    private final Optional<ReloadableSecurity> fileSecurity;
    private final List<Optional<ReloadableTls>> tls;
    /** This broker as a node of a cluster; empty with {@code cluster.enabled = false}. */
    private Optional<ClusterWiring> cluster = Optional.empty();

    private Pekquitto(ActorSystem<BrokerCommand> system, BrokerCommand.Bound bound, Optional<ReloadableSecurity> fileSecurity,
                      Duration stopTimeout, Optional<Metrics> metrics) {
        this.system = system;
        this.boundAddresses = bound.addresses();
        this.counts = bound.counts();
        this.fileSecurity = fileSecurity;
        this.tls = bound.tls();
        this.stopTimeout = stopTimeout;
        this.metrics = metrics;
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
        return startWithFiles(settings, UnaryOperator.identity());
    }

    /**
     * {@link #start(BrokerSettings)} for {@code Main}, the runnable broker: a fatal error on any thread of
     * its actor system halts the JVM at once ({@link HaltOnFatalError}). Never for an embedded broker,
     * which must not end its host's process on its own.
     */
    static Pekquitto startStandalone(BrokerSettings settings) {
        return startWithFiles(settings, config -> HaltOnFatalError.actorSystemConfig(config, settings.shards()));
    }

    private static Pekquitto startWithFiles(BrokerSettings settings, UnaryOperator<Config> aroundConfig) {
        var files = new ReloadableSecurity(settings.auth().readSecurity());
        return start(settings, files.security(), UnaryOperator.identity(), UnaryOperator.identity(), Optional.of(files),
                aroundConfig);
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
        return start(settings, security, aroundShard, UnaryOperator.identity(), Optional.empty(), UnaryOperator.identity());
    }

    /**
     * Starts the broker with each shard's behaviour wrapped by {@code aroundShard}, and its store, if
     * {@code settings} ask for one, by {@code aroundStore}: an embedder's instrumentation, or a test's
     * injected failure (see {@link Broker#create}).
     */
    public static Pekquitto start(BrokerSettings settings, Security security,
                                  UnaryOperator<Behavior<ShardMessage>> aroundShard, UnaryOperator<Store> aroundStore) {
        return start(settings, security, aroundShard, aroundStore, Optional.empty(), UnaryOperator.identity());
    }

    private static Pekquitto start(BrokerSettings settings, Security security,
                                   UnaryOperator<Behavior<ShardMessage>> aroundShard, UnaryOperator<Store> aroundStore,
                                   Optional<ReloadableSecurity> fileSecurity, UnaryOperator<Config> aroundConfig) {
        var shutdownTimeout = settings.operations().shutdownTimeout();
        // The broker's own shutdown task runs in this phase (BrokerCommand.Shutdown) and may take the whole timeout.
        var config = ConfigFactory.parseMap(Map.of("pekko.coordinated-shutdown.phases.service-requests-done.timeout",
                        shutdownTimeout.toMillis() + "ms"))
                .withFallback(Broker.dispatcherConfig(settings.shards()))
                .withFallback(ConfigLoader.actorSystemConfig());
        // A node of a cluster (docs/cluster.md). Without one, no class of the cluster module is touched, and so
        // none of Pekko Remote or Cluster is loaded (ClusterOffIT).
        var cluster = settings.cluster().enabled()
                ? Optional.of(new ClusterWiring(settings)) : Optional.<ClusterWiring>empty();
        config = cluster.isPresent() ? cluster.get().config(config) : WithoutRemoting.strip(config);
        config = aroundConfig.apply(config);  // last: it wraps the dispatchers as configured above
        var metricsSettings = settings.operations().metrics();
        var metrics = metricsSettings.enabled() ? Optional.of(new Metrics()) : Optional.<Metrics>empty();
        var system = ActorSystem.create(Broker.create(settings, security, aroundShard,
                metrics.map(LatencyObserver.class::cast).orElse(LatencyObserver.NONE), aroundStore,
                cluster.isPresent() ? cluster.get().sysExtras() : SysExtras.NONE), "pekquitto", config);
        try {
            if (cluster.isPresent()) cluster.get().start(system);
            var bound = AskPattern.<BrokerCommand, BrokerCommand.Bound>ask(
                            system, BrokerCommand.GetBoundAddresses::new, BIND_TIMEOUT, system.scheduler())
                    .toCompletableFuture()
                    .get(BIND_TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS);
            if (bound.failure().isPresent()) throw new IllegalStateException(bound.failure().get());
            var pekquitto = new Pekquitto(system, bound, fileSecurity, shutdownTimeout.plus(STOP_MARGIN), metrics);
            pekquitto.cluster = cluster;
            metrics.ifPresent(served -> {
                served.serve(metricsSettings, new FreshFigures(() -> figures(system), System::nanoTime),
                        cluster.isPresent() ? cluster.get().sysExtras() : SysExtras.NONE);
                pekquitto.metricsAddress = Optional.of(served.address(metricsSettings));
            });
            return pekquitto;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(system, shutdownTimeout.plus(STOP_MARGIN));
            throw new IllegalStateException("interrupted while starting", e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            stop(system, shutdownTimeout.plus(STOP_MARGIN));
            metrics.ifPresent(Metrics::close);
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

    /** Where {@code GET /metrics} is served, when {@code metrics.enabled}. */
    public Optional<InetSocketAddress> metricsAddress() {
        return metricsAddress;
    }

    /** The broker's figures, gathered now from every shard: what {@code $SYS} and the metrics show. */
    public CompletionStage<BrokerFigures> figures() {
        return figures(system);
    }

    private static CompletionStage<BrokerFigures> figures(ActorSystem<BrokerCommand> system) {
        return AskPattern.ask(system, BrokerCommand.GetFigures::new, FIGURES_TIMEOUT, system.scheduler());
    }

    /**
     * The members of this broker's cluster as it sees them now, by address; none without a cluster
     * ({@code cluster.enabled = false}).
     */
    public CompletionStage<List<ClusterMember>> clusterMembers() {
        return cluster.isPresent() ? cluster.get().members() : CompletableFuture.completedFuture(List.of());
    }

    /**
     * Why the cluster stopped this broker, once its actor system has terminated: this node was downed (the
     * Split Brain Resolver, or an operator), could not join its seed nodes, or its configuration did not
     * fit the cluster's; empty when it was stopped otherwise (SIGTERM, {@link #close}) or is running.
     */
    public Optional<String> stoppedByCluster() {
        var reason = CoordinatedShutdown.get(system).getShutdownReason();
        if (reason.isEmpty()) return Optional.empty();
        var why = reason.get();
        if (why.equals(CoordinatedShutdown.clusterDowningReason())) return Optional.of("this node was downed");
        if (why.equals(CoordinatedShutdown.clusterJoinUnsuccessfulReason())) {
            return Optional.of("this node could not join its seed nodes");
        }
        if (why.equals(CoordinatedShutdown.incompatibleConfigurationDetectedReason())) {
            return Optional.of("this node's configuration is incompatible with the cluster's");
        }
        return Optional.empty();
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
    public ActorSystem<BrokerCommand> actorSystem() {
        return system;
    }

    /** Blocks until the broker has stopped (for {@code Main}). */
    public void awaitTermination() {
        system.getWhenTerminated().toCompletableFuture().join();
    }

    /**
     * Shuts the broker down gracefully ({@link BrokerCommand.Shutdown}, through the actor system's
     * CoordinatedShutdown: listeners closed, DISCONNECT 0x8B to MQTT 5 clients, the store flushed and
     * closed) and returns once its actor system has terminated.
     */
    @Override
    public void close() {
        try {
            stop(system, stopTimeout);
        } finally {
            metrics.ifPresent(Metrics::close);
        }
    }

    private static void stop(ActorSystem<?> system, Duration timeout) {
        system.terminate();  // runs CoordinatedShutdown, and with it the broker's shutdown task
        try {
            system.getWhenTerminated().toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("broker did not stop within " + timeout, e);
        }
    }
}
