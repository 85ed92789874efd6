package io.pekquitto.shards;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * What waits for the store's writes. A PUBLISH routed in a turn is written by this shard's batch of
 * that turn (handed to its writer thread, which reports the batches written in order), and by every
 * peer it was forwarded to, which acknowledges a forwarded batch only once it has written it. So the
 * acknowledgements asked for in a turn go out when the turn's batch is written and every peer has
 * acknowledged the forwarded batches that hold the turn's messages: per peer, a count of batches (a
 * watermark). Turns are confirmed in order. This shard's own acknowledgements of peers' batches wait
 * for its writes the same way. Without a store every batch counts as written at once (number 0).
 * Plain rules; the shard counts the batches, tells the connections and acknowledges the peers.
 *
 * @param <C> how the shard names a connection
 */
final class WriteConfirmations<C> {
    /** The confirmations of one turn: per connection how many, the batch that holds it, and the forwarded batches. */
    private record Turn<C>(Map<C, Integer> confirmations, long batch, long[] forwardedUpTo) {}

    /** An acknowledgement of a peer's forwarded batch, once our batch {@code batch} is written. */
    private record PeerAck(long batch, int peer) {}

    private Map<C, Integer> current = new LinkedHashMap<>();
    private final ArrayDeque<Turn<C>> waiting = new ArrayDeque<>();
    private final ArrayDeque<PeerAck> peerAcks = new ArrayDeque<>();
    /** The last of this shard's batches written. */
    private long written;

    /** One more acknowledgement of {@code connection} waits for this turn's writes. */
    void await(C connection) {
        current.merge(connection, 1, Integer::sum);
    }

    /** Whether an acknowledgement waits for this turn's writes. */
    boolean awaitsThisTurn() {
        return !current.isEmpty();
    }

    /**
     * The turn ended: its writes are in batch {@code batch}, and its forwards queued, the batches to
     * each peer that will hold them counted in {@code forwardedUpTo}. Confirms what nothing holds back.
     */
    void turnEnded(long batch, long[] forwardedUpTo, long[] acknowledged, BiConsumer<C, Integer> confirm) {
        if (current.isEmpty()) return;
        waiting.add(new Turn<>(current, batch, forwardedUpTo));
        current = new LinkedHashMap<>();
        release(acknowledged, confirm);
    }

    /** This shard's batches up to {@code batch} are written. */
    void written(long batch, long[] acknowledged, BiConsumer<C, Integer> confirm, IntConsumer ackPeer) {
        written = Math.max(written, batch);
        while (!peerAcks.isEmpty() && peerAcks.peek().batch() <= written) ackPeer.accept(peerAcks.poll().peer());
        release(acknowledged, confirm);
    }

    /** Peers acknowledged forwarded batches up to {@code acknowledged[peer]}. */
    void peersAcknowledged(long[] acknowledged, BiConsumer<C, Integer> confirm) {
        release(acknowledged, confirm);
    }

    /** A peer's forwarded batch, processed here with its writes in batch {@code batch}: acknowledged once that is written. */
    void acknowledgePeerAfter(long batch, int peer, IntConsumer ackPeer) {
        if (batch <= written && peerAcks.isEmpty()) {
            ackPeer.accept(peer);
        } else {
            peerAcks.add(new PeerAck(batch, peer));
        }
    }

    private void release(long[] acknowledged, BiConsumer<C, Integer> confirm) {
        while (!waiting.isEmpty() && waiting.peek().batch() <= written && covers(acknowledged, waiting.peek().forwardedUpTo())) {
            waiting.poll().confirmations().forEach(confirm);
        }
    }

    private static boolean covers(long[] acknowledged, long[] needed) {
        for (int peer = 0; peer < needed.length; peer++) if (acknowledged[peer] < needed[peer]) return false;
        return true;
    }
}
