package io.pekquitto.cluster;

import java.util.HashSet;
import java.util.Set;

/**
 * Which nodes leave the cluster rather than being lost (docs/cluster.md, Wills across nodes): a node seen Leaving or
 * Exiting that is not downed afterwards stops its own broker, which publishes the wills of its clients as it closes
 * their connections (or keeps their sessions, which outlive it); so when its shards go, the others publish none of
 * them. A node downed, or gone without leaving, was lost: its clients' wills are the others' to publish. Nodes are
 * named {@code system@host:port}. Plain rules for {@link ClusterMesh}.
 */
final class Departures {
    private final Set<String> leaving = new HashSet<>();

    /** The node is Leaving or Exiting. */
    void leaving(String node) {
        leaving.add(node);
    }

    /** The node was downed (it may have been leaving: it stopped answering, and did not finish). */
    void downed(String node) {
        leaving.remove(node);
    }

    /** A node joined at that address: a new incarnation, not leaving. */
    void joined(String node) {
        leaving.remove(node);
    }

    /** Whether the node, whose shards are gone now, left rather than was lost. */
    boolean left(String node) {
        return leaving.contains(node);
    }
}
