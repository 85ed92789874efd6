package io.pekquitto.shards;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.Barriers;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.DataPlane;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.mesh.PeerHolds;
import io.pekquitto.shards.routes.RouteChange;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One shard's links to its peers (docs/shards-and-mesh.md, The mesh): the control plane, a plain {@code tell} per
 * message, FIFO per pair; the data plane, forwarded publishes batched per peer with a credit window
 * ({@link DataPlane}); barriers ({@link Barriers}); and holds ({@link PeerHolds}): nothing overtakes a session
 * handed to a peer before this shard's writes of it are written. With one shard there are no peers and every
 * barrier passes at once.
 */
final class Mesh {
    private int index;
    private List<ActorRef<ShardMessage>> peers = List.of();
    private DataPlane dataPlane = new DataPlane(1);
    private PeerHolds holds = new PeerHolds(1);
    private final Barriers barriers = new Barriers();

    /** Joins the broker's shards, as shard {@code newIndex}; peers hear that this shard (re)started. */
    void join(int newIndex, List<ActorRef<ShardMessage>> shards) {
        index = newIndex;
        peers = List.copyOf(shards);
        dataPlane = new DataPlane(peers.size());
        holds = new PeerHolds(peers.size());
        broadcast(new ControlMessage.Hello());
    }

    int index() { return index; }

    int size() { return Math.max(1, peers.size()); }

    boolean hasPeers() { return peers.size() > 1; }

    void control(int shard, ControlMessage message) {
        if (holds.isHeld(shard)) {
            holds.keep(shard, message);
        } else {
            peers.get(shard).tell(new Shard.Control(index, message));
        }
    }

    /**
     * Nothing more goes to {@code shard} (control or data) until this shard's batch {@code batch} is
     * written ({@link #written}): a session handed to it is written there after what we wrote of it.
     */
    void holdUntilWritten(int shard, long batch) {
        holds.holdUntil(shard, batch);
    }

    /** This shard's batches up to {@code batch} are written: what waited for them goes to its peers. */
    void written(long batch) {
        if (holds.written(batch, this::control)) flush();
    }

    /** A write of this shard failed: nothing waits for its writes any more (they will not be written soon). */
    void writeFailed() {
        if (holds.liftAll(this::control)) flush();
    }

    void broadcast(ControlMessage message) {
        for (int shard = 0; shard < peers.size(); shard++) if (shard != index) control(shard, message);
    }

    /** Tells every peer of a change of this shard's subscriptions. */
    void announce(Optional<RouteChange> change) {
        if (change.isPresent() && hasPeers()) broadcast(new ControlMessage.Routes(change.get()));
    }

    /** Runs {@code then} once every peer has applied what this shard sent it so far. */
    void afterPeersApplied(Runnable then) {
        if (!hasPeers()) {
            then.run();
            return;
        }
        broadcast(new ControlMessage.Sync(barriers.open(peers.size() - 1, then)));
    }

    /** A peer acknowledged a barrier: the continuation to run, or null. */
    Runnable synced(long token) {
        return barriers.acknowledged(token);
    }

    /** Queues a forward; true if the caller must schedule a flush. */
    boolean forward(int shard, Forwarded item) {
        return dataPlane.add(shard, item);
    }

    /** Sends what waits, one batch per peer that has credit. */
    void flush() {
        dataPlane.flush(holds::isHeld, (destination, batch) -> peers.get(destination).tell(new Shard.Forward(index, batch)));
    }

    /** A peer processed one of our batches: a credit back, and what waited goes out. */
    void batchAcknowledged(int peer) {
        dataPlane.acknowledged(peer);
        flush();
    }

    /** We processed a peer's batch: its credit back, and whether we wrote it (with a store; else true). */
    void acknowledgeBatch(int peer, boolean written) {
        peers.get(peer).tell(new Shard.ForwardAck(index, written));
    }

    /** Batches of forwards sent to the peers so far. */
    long batchesSent() { return dataPlane.batchesSent(); }

    /** QoS 0 forwards dropped so far because a peer was overloaded. */
    long droppedQos0() { return dataPlane.droppedQos0(); }

    /** A peer restarted: its credits start afresh. */
    void peerRestarted(int peer) {
        dataPlane.reset(peer);
    }

    /** Per peer, the forwarded batch that will hold what was forwarded so far. */
    long[] batchesHoldingQueued() { return dataPlane.batchesHoldingQueued(); }

    /** Per peer, the forwarded batches it has acknowledged (once written, when there is a store). */
    long[] acknowledgedBatches() { return dataPlane.acknowledgedBatches(); }

    boolean isOverloaded() { return dataPlane.isOverloaded(); }

    boolean isBelowLowWater() { return dataPlane.isBelowLowWater(); }
}
