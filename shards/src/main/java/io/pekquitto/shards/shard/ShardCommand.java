package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.actor.ListenerRequest;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.stats.ShardFigures;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the actors around a {@link Shard} tell it: the broker, its peers (through the {@link Mesh}, or the cluster's
 * serializer from another node), the cluster's membership and the broker's figures. A connection's requests are
 * {@link io.pekquitto.shards.connection.ShardRequest}s, a listener's {@link ListenerRequest}s; what the shard tells
 * itself is {@link ShardInternal}.
 */
public sealed interface ShardCommand extends ShardMessage {

    /** From the Broker: this shard's index and every shard of the mesh, itself included. */
    record Peers(int index, MeshPeers shards) implements ShardCommand {}

    /**
     * From the cluster, by id: shards of other nodes listed now ({@code joined}), removed ({@code gone}; {@code left}: of a node that
     * left, not lost), joined ones of younger nodes ({@code catchUp}: they get this node's retained messages), and every shard of a
     * node leaving now, this node's included ({@code leaving}: home to none).
     */
    record PeersChanged(List<Integer> joined, List<Integer> gone, List<Integer> catchUp, List<Integer> left,
                        List<Integer> leaving) implements FromTheMesh {}

    /**
     * What the shard's peers and the cluster tell it, which waits until the shard has joined the mesh ({@link Peers}):
     * a peer that started first may be heard before the broker's word, and what it says needs this shard's index and
     * its peers' references (a Sync answered before would be lost, and the barrier behind it would never open).
     */
    sealed interface FromTheMesh extends ShardCommand {}

    /** Data plane: a batch of publishes forwarded by shard {@code from}. */
    record Forward(int from, List<Forwarded> items) implements FromTheMesh {}

    /** Data plane: shard {@code from} has processed one of our batches (a credit back), and written it or failed to. */
    record ForwardAck(int from, boolean written) implements FromTheMesh {}

    /** Control plane: a message from shard {@code from}, in send order per pair. */
    record Control(int from, ControlMessage message) implements FromTheMesh {}

    /** From the broker's figures collector: this shard's counters and gauges now. */
    record GetFigures(ActorRef<ShardFigures> replyTo) implements ShardCommand {}

    /** From the Broker: the broker shuts down; each connection is told, and {@code replyTo} hears when none is left. */
    record ShutDown(ActorRef<ConnectionsGone> replyTo) implements ShardCommand {}

    /** The answer to {@link ShutDown}: shard {@code index} has no connection left. */
    record ConnectionsGone(int index) {}

    /** From the store's recovery: the store writes again, so what this shard kept is written now. */
    enum StoreRecovered implements ShardCommand { INSTANCE }
}
