package io.pekquitto.shards.mesh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * What one shard sends a peer after handing it a session, held until the shard's writes of that session
 * are written: the peer writes the session from then on, and its writes must come after ours in the
 * store, and read what we wrote. The shard's thread goes on meanwhile (a slow disk never holds it);
 * control messages to that peer wait here, in order, and its data plane is not flushed, so that nothing
 * about the session overtakes the handover. Peers with no hold are not concerned. Plain rules; the
 * shard sends.
 */
public final class PeerHolds {
    /** Per peer, the number of the shard's batch to be written before the peer hears more; 0: none. */
    private long[] until = new long[0];
    private final List<List<ControlMessage>> held = new ArrayList<>();

    public PeerHolds(int shards) {
        grow(shards);
    }

    /** Room for peers up to {@code shards - 1}; holds stay. */
    public void grow(int shards) {
        if (shards <= until.length) return;
        for (int i = until.length; i < shards; i++) held.add(null);
        until = Arrays.copyOf(until, shards);
    }

    /** A peer is gone for good: its hold and what it held are dropped. */
    public void drop(int peer) {
        until[peer] = 0;
        held.set(peer, null);
    }

    /** Nothing more goes to {@code peer} until batch {@code batch} is written. */
    public void holdUntil(int peer, long batch) {
        until[peer] = Math.max(until[peer], batch);
    }

    public boolean isHeld(int peer) {
        return until[peer] != 0;
    }

    /** A control message for a held peer, sent when the hold ends. */
    public void keep(int peer, ControlMessage message) {
        if (held.get(peer) == null) held.set(peer, new ArrayList<>());
        held.get(peer).add(message);
    }

    /**
     * The shard's batches up to {@code batch} are written: the holds they end are lifted, and each peer's
     * held messages go to {@code send} in order. Returns whether any hold ended (the data plane may go).
     */
    public boolean written(long batch, BiConsumer<Integer, ControlMessage> send) {
        boolean lifted = false;
        for (int peer = 0; peer < until.length; peer++) {
            if (until[peer] != 0 && until[peer] <= batch) {
                lift(peer, send);
                lifted = true;
            }
        }
        return lifted;
    }

    /** A write failed: every hold is lifted, as nothing will be written soon (the peers' writes may come first). */
    public boolean liftAll(BiConsumer<Integer, ControlMessage> send) {
        return written(Long.MAX_VALUE, send);
    }

    private void lift(int peer, BiConsumer<Integer, ControlMessage> send) {
        until[peer] = 0;
        var messages = held.set(peer, null);
        if (messages != null) for (var message : messages) send.accept(peer, message);
    }
}
