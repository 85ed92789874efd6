package io.pekquitto.shards.mesh;

import java.util.HashMap;
import java.util.Map;

/**
 * Continuations waiting for every peer to have applied what this shard sent it so far: the shard
 * sends each peer a {@link ControlMessage.Sync} after its announcements, and the per-pair FIFO
 * order makes the {@link ControlMessage.SyncAck}s arrive only once those are applied. A SUBACK or a
 * CONNACK of a moved session waits for this, so that a message published after it is routed by
 * every shard.
 */
public final class Barriers {
    private final Map<Long, Waiting> waiting = new HashMap<>();
    private long nextToken;

    private static final class Waiting {
        int acks;
        final Runnable then;

        Waiting(int acks, Runnable then) {
            this.acks = acks;
            this.then = then;
        }
    }

    /** Opens a barrier that {@code peers} acknowledgements release; returns the token to send in Sync. */
    public long open(int peers, Runnable then) {
        long token = ++nextToken;
        waiting.put(token, new Waiting(peers, then));
        return token;
    }

    /** A peer acknowledged: the continuation to run now that the last one did, or null. */
    public Runnable acknowledged(long token) {
        var barrier = waiting.get(token);
        if (barrier == null || --barrier.acks > 0) return null;
        waiting.remove(token);
        return barrier.then;
    }
}
