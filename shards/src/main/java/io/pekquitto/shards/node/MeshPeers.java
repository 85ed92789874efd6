package io.pekquitto.shards.node;

import io.pekquitto.shards.connection.ShardMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Every shard of the mesh as this node numbers them (docs/cluster.md, One mesh across nodes): its own shards
 * first, {@code 0..localShards-1}, then each shard of another node as it first appears, named by its node's
 * address and its index there. An id is never reused, and a node that comes back at the same address gets
 * its ids back, so what a shard keeps per peer stays indexed by id however nodes come and go. Shared by the
 * node's shards (which read the references), the cluster's serializer (which numbers the sender of each
 * message it reads) and the cluster's membership (which sets the references): thread-safe.
 */
public final class MeshPeers {
    /**
     * What a batch forwarded to another node's shard carries at most, unless one message is larger: Pekko's
     * frames between nodes are sized above it (and above the largest packet) by the cluster's configuration.
     */
    public static final long REMOTE_BATCH_BYTES = 256 * 1024;
    /** Room in a frame for what the mesh adds to the messages it carries. */
    private static final long FRAME_MARGIN = 64 * 1024;

    /** The largest message between nodes: a forwarded batch, or one message as large as the largest packet, and the margin. */
    public static long frameBytes(int maxPacketSize) {
        return Math.max(2 * REMOTE_BATCH_BYTES, maxPacketSize + FRAME_MARGIN);
    }

    /** What a session moving to another node may carry at most: one frame but the margin. */
    public static long sessionBytes(int maxPacketSize) {
        return frameBytes(maxPacketSize) - FRAME_MARGIN;
    }

    private final int localShards;
    /** This node's name, as the others name it ({@code system@host:port} in a cluster). */
    private final String node;
    /** Whether this node is one of a cluster: its shards order no claim before the cluster's ring is known. */
    private final boolean clustered;
    /** Remote shards' ids by "node/index"; guarded by this. */
    private final Map<String, Integer> ids = new HashMap<>();
    /** Every id's shard as the cluster names it; guarded by this. */
    private final List<ShardName> names = new ArrayList<>();
    /** By id; null where not known now: a remote shard not listed yet, or whose node left. */
    private volatile ActorRef<?>[] refs;

    /** A shard as every node names it: its node's address and its index there. Ordered by both (the homes' ring). */
    public record ShardName(String node, int index) implements Comparable<ShardName> {
        @Override
        public int compareTo(ShardName other) {
            int byNode = node.compareTo(other.node);
            return byNode != 0 ? byNode : Integer.compare(index, other.index);
        }
    }

    /** A node of its own, outside a cluster. */
    public MeshPeers(int localShards) {
        this(localShards, "local", false);
    }

    /**
     * @param node      this node's name as the other nodes know it ({@code system@host:port})
     * @param clustered whether it is a node of a cluster
     */
    public MeshPeers(int localShards, String node, boolean clustered) {
        this.localShards = localShards;
        this.node = node;
        this.clustered = clustered;
        this.refs = new ActorRef<?>[localShards];
        for (int i = 0; i < localShards; i++) names.add(new ShardName(node, i));
    }

    public String node() { return node; }

    public boolean clustered() { return clustered; }

    /** The shard {@code id} as the cluster names it. */
    public synchronized ShardName name(int id) {
        return names.get(id);
    }

    /** The id of the shard named {@code name}: one of ours, or a remote one (given now if it has none). */
    public int idOf(ShardName name) {
        return name.node().equals(node) ? name.index() : remoteId(name.node(), name.index());
    }

    /** This node's shards, once spawned: a shard restarted by its supervisor finds them here. */
    public synchronized void local(List<ActorRef<ShardMessage>> shards) {
        if (shards.size() != localShards) throw new IllegalArgumentException(shards.size() + " shards, not " + localShards);
        var copy = refs.clone();
        for (int i = 0; i < localShards; i++) copy[i] = shards.get(i);
        refs = copy;
    }

    /** The index of one of this node's shards. */
    public int localIndexOf(ActorRef<ShardMessage> shard) {
        var all = refs;
        for (int i = 0; i < localShards; i++) if (shard.equals(all[i])) return i;
        throw new IllegalArgumentException(shard + " is not a shard of this node");
    }

    /** Whether the local shards are set ({@link #local}). */
    public boolean started() {
        return localShards == 0 || refs[0] != null;
    }

    public int localShards() { return localShards; }

    /** Ids given so far: every id is below it. */
    public int size() { return refs.length; }

    public boolean isLocal(int id) { return id < localShards; }

    /** What a batch to a remote shard carries at most ({@link #REMOTE_BATCH_BYTES}). */
    public long batchBytes() { return REMOTE_BATCH_BYTES; }

    /** The id of shard {@code index} of the node at {@code node} ("host:port"), given now if it has none. */
    public synchronized int remoteId(String node, int index) {
        var id = ids.get(node + "/" + index);
        if (id != null) return id;
        int next = refs.length;
        ids.put(node + "/" + index, next);
        names.add(new ShardName(node, index));
        refs = Arrays.copyOf(refs, next + 1);
        return next;
    }

    /** The reference of remote shard {@code id} now, or null: its node left. */
    public synchronized void remote(int id, ActorRef<ShardMessage> ref) {
        if (isLocal(id)) throw new IllegalArgumentException("shard " + id + " is local");
        var copy = refs.clone();
        copy[id] = ref;
        refs = copy;
    }

    /** The shard's reference, or null if it is not known now. */
    @SuppressWarnings("unchecked")
    public ActorRef<ShardMessage> ref(int id) {
        var all = refs;
        return id < all.length ? (ActorRef<ShardMessage>) all[id] : null;
    }

    /** The remote shards whose references are known now, by id. */
    public List<Integer> remoteShards() {
        var all = refs;
        var live = new ArrayList<Integer>();
        for (int id = localShards; id < all.length; id++) if (all[id] != null) live.add(id);
        return live;
    }
}
