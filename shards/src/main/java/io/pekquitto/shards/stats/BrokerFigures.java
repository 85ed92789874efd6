package io.pekquitto.shards.stats;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The broker's figures at one moment: every shard's, and what is the broker's own. Sums are over the
 * shards; retained messages are counted once (each shard holds all of them).
 *
 * @param uptimeSeconds     since the broker started
 * @param maximumConnected  the most connections open at once, as sampled
 * @param heapUsed          bytes of heap in use
 * @param heapMax           the heap's limit
 * @param store             the store: whether it writes, its size, the space left for it
 * @param connectionsRefused connections the listeners closed as they accepted them, over their
 *                          {@code max-connections}, since the broker started
 */
public record BrokerFigures(long uptimeSeconds, List<ShardFigures> shards, long maximumConnected, long heapUsed,
                            long heapMax, StoreFigures store, long connectionsRefused) {

    public BrokerFigures {
        shards = List.copyOf(shards);
    }

    public long sum(ToLongFunction<ShardFigures> figure) {
        long total = 0;
        for (var shard : shards) total += figure.applyAsLong(shard);
        return total;
    }

    public long connected() { return connected(shards); }

    /** Open connections on these shards, parked ones included. */
    public static long connected(List<ShardFigures> shards) {
        long total = 0;
        for (var shard : shards) total += shard.gauges().connections();
        return total;
    }

    public long disconnected() { return sum(shard -> shard.gauges().offlineSessions()); }

    public long retained() { return shards.isEmpty() ? 0 : shards.get(0).gauges().retained(); }
}
