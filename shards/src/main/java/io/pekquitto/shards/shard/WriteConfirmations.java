package io.pekquitto.shards.shard;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What waits for the store's writes. A PUBLISH routed in a turn is written by this shard's batch of
 * that turn (handed to its writer thread, which reports the batches written in order), and by every
 * peer it was forwarded to, which acknowledges a forwarded batch only once it has written it. So the
 * acknowledgements asked for in a turn go out when the turn's batch is written and every peer has
 * acknowledged the forwarded batches that hold the turn's messages: per peer, a count of batches (a
 * watermark). Turns are confirmed in order. This shard's own acknowledgements of peers' batches wait
 * for its writes the same way. Without a store every batch counts as written at once (number 0).
 *
 * <p>A write that fails fails the turns that wait for it: this shard's (every turn not yet written, and
 * every turn that ends while the store fails), and a peer's that it forwarded to a shard whose write of
 * them failed, which says so when it acknowledges them ({@code written} false). A failed turn is
 * settled at once, in order, as refused; its writes stay with the shard, written once the store writes
 * again, but what they acknowledge is never confirmed: nothing is acknowledged unwritten.
 * Plain rules; the shard counts the batches, tells the connections and acknowledges the peers.
 *
 * @param <C> how the shard names a connection
 */
final class WriteConfirmations<C> {
    /** The connections told the outcome of their acknowledgements: how many, and whether they were written. */
    interface Outcome<C> {
        void settled(C connection, int count, boolean written);
    }

    /** An acknowledgement of a peer's forwarded batch, written or not. */
    interface PeerAck {
        void acknowledge(int peer, boolean written);
    }

    /** The confirmations of one turn: per connection how many, the batch that holds it, and the forwarded batches. */
    private static final class Turn<C> {
        final Map<C, Integer> confirmations;
        final long batch;
        final long[] forwardedUpTo;
        boolean failed;

        Turn(Map<C, Integer> confirmations, long batch, long[] forwardedUpTo, boolean failed) {
            this.confirmations = confirmations;
            this.batch = batch;
            this.forwardedUpTo = forwardedUpTo;
            this.failed = failed;
        }
    }

    /** An acknowledgement of a peer's forwarded batch, once our batch {@code batch} is written. */
    private record WaitingPeerAck(long batch, int peer) {}

    private Map<C, Integer> current = new LinkedHashMap<>();
    private final ArrayDeque<Turn<C>> waiting = new ArrayDeque<>();
    private final ArrayDeque<WaitingPeerAck> peerAcks = new ArrayDeque<>();
    /** The last of this shard's batches written. */
    private long written;
    /** A write failed and what followed it is not written yet: turns that end now fail. */
    private boolean failing;

    /** One more acknowledgement of {@code connection} waits for this turn's writes. */
    void await(C connection) {
        current.merge(connection, 1, Integer::sum);
    }

    /**
     * One more acknowledgement of {@code connection} whose message wrote nothing and went to no peer: it
     * has nothing to wait for, and is settled at once, unless one of the connection's earlier ones still
     * waits; then it goes with the latest of those, so that the connection's acknowledgements keep their order.
     */
    void settleNow(C connection, Outcome<C> outcome) {
        if (current.containsKey(connection)) {
            current.merge(connection, 1, Integer::sum);
            return;
        }
        for (var turns = waiting.descendingIterator(); turns.hasNext(); ) {
            var turn = turns.next();
            if (turn.confirmations.containsKey(connection)) {
                turn.confirmations.merge(connection, 1, Integer::sum);
                return;
            }
        }
        outcome.settled(connection, 1, true);
    }

    /** Whether an acknowledgement waits for this turn's writes. */
    boolean awaitsThisTurn() {
        return !current.isEmpty();
    }

    /**
     * The turn ended: its writes are in batch {@code batch}, and its forwards queued, the batches to
     * each peer that will hold them counted in {@code forwardedUpTo}. Settles what nothing holds back.
     */
    void turnEnded(long batch, long[] forwardedUpTo, long[] acknowledged, Outcome<C> outcome) {
        if (current.isEmpty()) return;
        waiting.add(new Turn<>(current, batch, forwardedUpTo, failing && batch > written));
        current = new LinkedHashMap<>();
        release(acknowledged, outcome);
    }

    /** This shard's batches up to {@code batch} are written. */
    void written(long batch, long[] acknowledged, Outcome<C> outcome, PeerAck ackPeer) {
        written = Math.max(written, batch);
        while (!peerAcks.isEmpty() && peerAcks.peek().batch() <= written) ackPeer.acknowledge(peerAcks.poll().peer(), true);
        release(acknowledged, outcome);
    }

    /**
     * A write of this shard failed: every turn not written yet fails, and so does every turn that ends
     * until {@link #recovered()}; the peers' batches that wait for our writes are acknowledged as not written.
     */
    void writeFailed(long[] acknowledged, Outcome<C> outcome, PeerAck ackPeer) {
        failing = true;
        for (var turn : waiting) if (turn.batch > written) turn.failed = true;
        while (!peerAcks.isEmpty()) ackPeer.acknowledge(peerAcks.poll().peer(), false);
        release(acknowledged, outcome);
    }

    /** Everything this shard kept since a write failed is written: turns that end from now on wait as usual. */
    void recovered() {
        failing = false;
    }

    /** Peers acknowledged forwarded batches up to {@code acknowledged[peer]}. */
    void peersAcknowledged(long[] acknowledged, Outcome<C> outcome) {
        release(acknowledged, outcome);
    }

    /**
     * Peer {@code peer} could not write our forwarded batch number {@code batch} (counted from 1): the
     * turns whose messages it holds fail. A turn that forwarded nothing to it waits on no batch of it
     * after those it needed before, so only turns whose watermark reaches this batch are hit.
     */
    void peerFailed(int peer, long batch, long[] acknowledged, Outcome<C> outcome) {
        for (var turn : waiting) if (turn.forwardedUpTo[peer] >= batch) turn.failed = true;
        release(acknowledged, outcome);
    }

    /** A peer's forwarded batch, processed here with its writes in batch {@code batch}: acknowledged once that is written. */
    void acknowledgePeerAfter(long batch, int peer, PeerAck ackPeer) {
        if (failing) {
            ackPeer.acknowledge(peer, false);  // in order: none waits behind a failure (writeFailed let them go)
        } else if (batch <= written && peerAcks.isEmpty()) {
            ackPeer.acknowledge(peer, true);
        } else {
            peerAcks.add(new WaitingPeerAck(batch, peer));
        }
    }

    private void release(long[] acknowledged, Outcome<C> outcome) {
        while (!waiting.isEmpty()) {
            var turn = waiting.peek();
            if (!turn.failed && (turn.batch > written || !covers(acknowledged, turn.forwardedUpTo))) return;
            waiting.poll();
            boolean wasWritten = !turn.failed;
            turn.confirmations.forEach((connection, count) -> outcome.settled(connection, count, wasWritten));
        }
    }

    private static boolean covers(long[] acknowledged, long[] needed) {
        for (int peer = 0; peer < needed.length; peer++) if (acknowledged[peer] < needed[peer]) return false;
        return true;
    }
}
