package io.pekquitto.shards.broker;

import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.shard.ShardCounts;
import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the {@link Broker}'s owner tells it: an embedder, {@code Pekquitto} (module ops) or the cluster. What the broker
 * hears from its own listeners, shards and timers is {@link BrokerInternal}, not for the owner to send.
 */
public sealed interface BrokerCommand permits BrokerCommand.GetBoundAddresses, BrokerCommand.Shutdown,
        BrokerCommand.GetFigures, BrokerCommand.StopAccepting, BrokerCommand.ConnectClient, BrokerInternal {

    /** Asks for the listeners' bound addresses; answered once every listener is bound or one failed. */
    record GetBoundAddresses(ActorRef<Bound> replyTo) implements BrokerCommand {}

    /**
     * The bound address of each listener in configuration order, or why binding failed; {@code tls} has,
     * in the same order, each TLS listener's certificate as it serves it, for a reload to replace.
     */
    record Bound(List<InetSocketAddress> addresses, Optional<String> failure, ShardCounts counts,
                 List<Optional<ReloadableTls>> tls) {}

    /**
     * Shuts the broker down gracefully and stops it: the listeners close, every client is disconnected
     * (DISCONNECT 0x8B to MQTT 5 clients, parked ones too) and gives its session back, the store is
     * flushed and closed; then {@code replyTo} hears {@link Done}. Past {@code shutdown-timeout} the
     * broker stops without waiting for the rest. The broker sends it itself from its actor system's
     * CoordinatedShutdown (phase {@code service-requests-done}).
     */
    record Shutdown(ActorRef<Done> replyTo) implements BrokerCommand {}

    /** Asks for the broker's figures, gathered now from every shard (what $SYS and the metrics show). */
    record GetFigures(ActorRef<BrokerFigures> replyTo) implements BrokerCommand {}

    /** Close the listeners, ahead of the shutdown: a node leaving its cluster hands its sessions on first. */
    enum StopAccepting implements BrokerCommand { INSTANCE }

    /**
     * Connects an {@link InProcessClient}: an MQTT client for actors, with no socket. It is served by the
     * shard of its client id, and {@code replyTo} hears {@link InProcessClient.Connected} or
     * {@link InProcessClient.Refused}.
     */
    record ConnectClient(ConnectOptions options, ActorRef<InProcessClient.ConnectOutcome> replyTo) implements BrokerCommand {}
}
