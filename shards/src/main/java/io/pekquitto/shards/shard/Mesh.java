package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.Barriers;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.DataPlane;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.mesh.PeerHolds;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.session.HomeRing;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.IntConsumer;

/**
 * One shard's links to its peers (docs/shards-and-mesh.md, The mesh): the control plane, a plain {@code tell} per
 * message, FIFO per pair; the data plane, forwarded publishes batched per peer with a credit window
 * ({@link DataPlane}); barriers ({@link Barriers}); and holds ({@link PeerHolds}): nothing overtakes a session
 * handed to a peer before this shard's writes of it are written. With one shard there are no peers and every
 * barrier passes at once.
 *
 * <p>In a cluster the peers are every shard of every node, numbered by {@link MeshPeers}; a shard of another node
 * is a peer once the cluster lists it ({@link #joined}) or once it has sent us something, and is one no more once
 * its node left ({@link #gone}). What is sent to one whose reference is not known yet waits here, in order.
 */
final class Mesh {
    /** Messages kept for one peer whose reference is not known yet, past which they are dropped (its node is gone). */
    static final int MOST_WAITING_FOR_REFERENCE = 100_000;

    private int index;
    private MeshPeers table = new MeshPeers(0);
    /** Every peer, this shard included: the local shards, and remote ones listed or heard from. */
    private final TreeSet<Integer> peers = new TreeSet<>();
    /** The remote peers the cluster listed: a barrier waits for them too. */
    private final TreeSet<Integer> listed = new TreeSet<>();
    /** The shards, of this node or of others, whose node is leaving: in the mesh, home to no client id. */
    private final TreeSet<Integer> leaving = new TreeSet<>();
    private final Map<Integer, List<ShardMessage>> waitingForReference = new HashMap<>();
    private DataPlane dataPlane = new DataPlane(1);
    private PeerHolds holds = new PeerHolds(1);
    private final Barriers barriers = new Barriers();

    /** Joins the mesh as shard {@code newIndex}, with every shard known now; peers hear that this shard (re)started. */
    void join(int newIndex, MeshPeers shards) {
        index = newIndex;
        table = shards;
        peers.clear();
        listed.clear();
        waitingForReference.clear();
        for (int shard = 0; shard < shards.localShards(); shard++) peers.add(shard);
        peers.addAll(shards.remoteShards());
        listed.addAll(shards.remoteShards());
        dataPlane = new DataPlane(shards.size());
        holds = new PeerHolds(shards.size());
        for (int peer : listed) limitBatches(peer);
        broadcast(new ControlMessage.Hello());
    }

    int index() { return index; }

    /** This node's shards: the homes of client ids, and what recovery reads, are among them. */
    int localShards() { return Math.max(1, table.localShards()); }

    boolean hasPeers() { return peers.size() > 1; }

    /** Every peer, this shard included. */
    List<Integer> peerIds() { return List.copyOf(peers); }

    boolean isRemote(int shard) { return !table.isLocal(shard); }

    /**
     * The ring of homes (docs/cluster.md, Homes across nodes): this node's shards and the listed shards of
     * other nodes, in the order every node sees them (by node address, then index), named by a hash of it.
     */
    HomeRing ring() {
        var ids = new ArrayList<Integer>();
        for (int shard = 0; shard < table.localShards(); shard++) ids.add(shard);
        ids.addAll(listed);
        ids.sort(Comparator.comparing(table::name));
        long epoch = 1_125_899_906_842_597L;
        var homes = new ArrayList<Integer>();
        var leavingNow = new ArrayList<Integer>();
        for (int id : ids) {
            boolean isLeaving = leaving.contains(id);
            (isLeaving ? leavingNow : homes).add(id);
            var name = table.name(id);
            epoch = 31 * (31 * (31 * epoch + name.node().hashCode()) + name.index()) + (isLeaving ? 1 : 0);
        }
        if (homes.isEmpty()) return new HomeRing(epoch, toArray(leavingNow));  // every node leaving: this one stays home
        return new HomeRing(epoch, toArray(homes), toArray(leavingNow));
    }

    private static int[] toArray(List<Integer> ids) {
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The shards of nodes leaving now, this node's included if it is (docs/cluster.md, A node leaving). */
    void leaving(List<Integer> shards) {
        leaving.clear();
        leaving.addAll(shards);
    }

    /** A message from {@code shard}: a remote one is a peer from now on (the cluster may list it later). */
    void heardFrom(int shard) {
        if (peers.contains(shard)) return;
        grow();
        peers.add(shard);
    }

    /**
     * The cluster listed a remote shard: it hears first that we are here (so it forgets what it may have kept
     * of us and resynchronises us), then what waited for its reference.
     */
    void joined(int shard) {
        heardFrom(shard);
        listed.add(shard);
        limitBatches(shard);
        send(shard, new ShardCommand.Control(index, new ControlMessage.Hello()));
        var waiting = waitingForReference.remove(shard);
        if (waiting != null) waiting.forEach(message -> send(shard, message));
        flush();
    }

    /** A remote shard's node left: nothing more goes to it, and nothing waits for it; the barriers it held, to run. */
    List<Runnable> gone(int shard) {
        peers.remove(shard);
        listed.remove(shard);
        leaving.remove(shard);
        waitingForReference.remove(shard);
        if (shard >= dataPlane.destinations()) return List.of();
        dataPlane.drop(shard);
        holds.drop(shard);
        return barriers.peerGone(shard);
    }

    private void grow() {
        dataPlane.grow(table.size());
        holds.grow(table.size());
    }

    /** A frame between nodes carries a bounded batch (ClusterConfig sizes Artery's frames above it). */
    private void limitBatches(int shard) {
        grow();
        dataPlane.limitBatches(shard, table.batchBytes());
    }

    private void send(int shard, ShardMessage message) {
        var ref = table.ref(shard);
        if (ref != null) {
            ref.tell(message);
            return;
        }
        var waiting = waitingForReference.computeIfAbsent(shard, s -> new ArrayList<>());
        if (waiting.size() < MOST_WAITING_FOR_REFERENCE) waiting.add(message);
    }

    void control(int shard, ControlMessage message) {
        if (holds.isHeld(shard)) {
            holds.keep(shard, message);
        } else {
            send(shard, new ShardCommand.Control(index, message));
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
        for (int shard : peers) if (shard != index) control(shard, message);
    }

    /** Runs {@code action} for every peer but this shard. */
    void forEachPeer(IntConsumer action) {
        for (int shard : peers) if (shard != index) action.accept(shard);
    }

    /** Tells every peer of a change of this shard's subscriptions. */
    void announce(Optional<RouteChange> change) {
        if (change.isPresent() && hasPeers()) broadcast(new ControlMessage.Routes(change.get()));
    }

    /** Runs {@code then} once every peer (of this node, and listed of others) has applied what this shard sent it so far. */
    void afterPeersApplied(Runnable then) {
        var waitFor = new ArrayList<Integer>();
        for (int shard : peers) if (shard != index && (table.isLocal(shard) || listed.contains(shard))) waitFor.add(shard);
        if (waitFor.isEmpty()) {
            then.run();
            return;
        }
        var sync = new ControlMessage.Sync(barriers.open(waitFor, then));
        for (int shard : waitFor) control(shard, sync);
    }

    /** Peer {@code from} acknowledged a barrier: the continuation to run, or null. */
    Runnable synced(long token, int from) {
        return barriers.acknowledged(token, from);
    }

    /** Queues a forward; true if the caller must schedule a flush. */
    boolean forward(int shard, Forwarded item) {
        return dataPlane.add(shard, item);
    }

    /** Sends what waits, one batch per peer that has credit. */
    void flush() {
        dataPlane.flush(shard -> holds.isHeld(shard) || table.ref(shard) == null,
                (destination, batch) -> send(destination, new ShardCommand.Forward(index, batch)));
    }

    /** A peer processed one of our batches: a credit back, and what waited goes out. */
    void batchAcknowledged(int peer) {
        dataPlane.acknowledged(peer);
        flush();
    }

    /** We processed a peer's batch: its credit back, and whether we wrote it (with a store; else true). */
    void acknowledgeBatch(int peer, boolean written) {
        send(peer, new ShardCommand.ForwardAck(index, written));
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
