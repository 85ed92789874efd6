package io.pekquitto.cluster.mesh;

import io.pekquitto.shards.node.MeshPeers;

/**
 * How shards are named between nodes (docs/cluster.md, The mesh's messages on the wire). Each node numbers the
 * shards it knows its own way ({@link MeshPeers}), so a shard travels as its node's address ("" for a shard of
 * the sending node) and its index there, and the receiver numbers it again. The sender's own shard (a message's
 * {@code from}, a shared member on it) is its index alone.
 */
public interface ShardNaming {

    /** The sender's shard {@code index}, in this node's numbering. */
    int sender(int index);

    /** The node of shard {@code id} of this node's numbering, as written: "" for one of this node's. */
    String node(int id);

    /** The index of shard {@code id} on its node. */
    int index(int id);

    /** The shard written as {@code node} and {@code index}, in this node's numbering. */
    int id(String node, int index);

    /** One node, or one JVM's tests: every shard is named by its number. */
    ShardNaming SAME_NODE = new ShardNaming() {
        @Override public int sender(int index) { return index; }
        @Override public String node(int id) { return ""; }
        @Override public int index(int id) { return id; }
        @Override public int id(String node, int index) { return index; }
    };

    /** Shards as {@code peers} number them, in what this node writes or reads from the node {@code sender}. */
    static ShardNaming of(MeshPeers peers, String sender) {
        boolean fromHere = sender.equals(peers.node());
        return new ShardNaming() {
            @Override
            public int sender(int index) {
                return fromHere ? index : peers.remoteId(sender, index);
            }

            @Override
            public String node(int id) {
                return peers.isLocal(id) ? "" : peers.name(id).node();
            }

            @Override
            public int index(int id) {
                return peers.isLocal(id) ? id : peers.name(id).index();
            }

            @Override
            public int id(String node, int index) {
                if (node.isEmpty()) return sender(index);
                return node.equals(peers.node()) ? index : peers.remoteId(node, index);
            }
        };
    }
}
