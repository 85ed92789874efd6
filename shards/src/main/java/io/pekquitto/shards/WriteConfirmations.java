package io.pekquitto.shards;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Which connections' QoS 1/2 acknowledgements wait for which writes. A PUBLISH routed in a turn is
 * written by this shard's batch at the end of the turn, and by every peer it was forwarded to, which
 * acknowledges a forwarded batch only once it has written it. So the acknowledgements asked for in a
 * turn go out when the turn's batch is written and every peer has acknowledged the forwarded batches
 * that hold the turn's messages: per peer, a count of batches (a watermark). Turns are confirmed in
 * order. Plain rules; the shard counts the batches and tells the connections.
 *
 * @param <C> how the shard names a connection
 */
final class WriteConfirmations<C> {
    /** The confirmations of one written turn: per connection how many, and the forwarded batches they wait for. */
    private record Turn<C>(Map<C, Integer> confirmations, long[] forwardedUpTo) {}

    private Map<C, Integer> current = new LinkedHashMap<>();
    private final ArrayDeque<Turn<C>> waitingForPeers = new ArrayDeque<>();

    /** One more acknowledgement of {@code connection} waits for this turn's writes. */
    void await(C connection) {
        current.merge(connection, 1, Integer::sum);
    }

    /**
     * The turn's batch is written, and its forwards are queued: {@code forwardedUpTo[peer]} counts the
     * batches to each peer that will hold them. Confirms what no peer write holds back.
     */
    void turnWritten(long[] forwardedUpTo, long[] acknowledged, BiConsumer<C, Integer> confirm) {
        if (current.isEmpty()) return;
        waitingForPeers.add(new Turn<>(current, forwardedUpTo));
        current = new LinkedHashMap<>();
        peersAcknowledged(acknowledged, confirm);
    }

    /** Peers acknowledged forwarded batches up to {@code acknowledged[peer]}: the turns they covered are confirmed. */
    void peersAcknowledged(long[] acknowledged, BiConsumer<C, Integer> confirm) {
        while (!waitingForPeers.isEmpty() && covers(acknowledged, waitingForPeers.peek().forwardedUpTo())) {
            waitingForPeers.poll().confirmations().forEach(confirm);
        }
    }

    private static boolean covers(long[] acknowledged, long[] needed) {
        for (int peer = 0; peer < needed.length; peer++) if (acknowledged[peer] < needed[peer]) return false;
        return true;
    }
}
