package io.pekquitto.shards.mesh;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Continuations waiting for every peer to have applied what this shard sent it so far: the shard
 * sends each peer a {@link ControlMessage.Sync} after its announcements, and the per-pair FIFO
 * order makes the {@link ControlMessage.SyncAck}s arrive only once those are applied. A SUBACK or a
 * CONNACK of a moved session waits for this, so that a message published after it is routed by
 * every shard. A peer that leaves the mesh for good (its node left the cluster) no longer holds any.
 */
public final class Barriers {
    private final Map<Long, Waiting> waiting = new HashMap<>();
    private long nextToken;

    private record Waiting(Set<Integer> peers, Runnable then) {}

    /** Opens a barrier that an acknowledgement of each of {@code peers} releases; returns the token to send in Sync. */
    public long open(Collection<Integer> peers, Runnable then) {
        long token = ++nextToken;
        waiting.put(token, new Waiting(new HashSet<>(peers), then));
        return token;
    }

    /** {@code peer} acknowledged: the continuation to run now that the last one did, or null. */
    public Runnable acknowledged(long token, int peer) {
        var barrier = waiting.get(token);
        if (barrier == null || !barrier.peers.remove(peer) || !barrier.peers.isEmpty()) return null;
        waiting.remove(token);
        return barrier.then;
    }

    /** {@code peer} left the mesh: the continuations it alone held back, to run now. */
    public List<Runnable> peerGone(int peer) {
        var released = new ArrayList<Runnable>();
        var each = waiting.values().iterator();
        while (each.hasNext()) {
            var barrier = each.next();
            if (barrier.peers.remove(peer) && barrier.peers.isEmpty()) {
                each.remove();
                released.add(barrier.then);
            }
        }
        return released;
    }
}
