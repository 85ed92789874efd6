package io.pekquitto.shards.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * The memory budgets (README, "Memory budgets"): how much of the heap the broker's clients may fill
 * with what they hold, and what one client may ({@code pekquitto.memory}, {@code pekquitto.max-queued-bytes}).
 *
 * @param budget         bytes all clients may hold in the heap together, an equal part per shard
 *                       ({@code memory.budget}); 0 turns every memory rule off
 * @param clientShare    bytes one client may hold: a quarter of its shard's part of the budget, or
 *                       {@code max-queued-bytes} if set larger; 0 for none ({@code max-queued-bytes = 0}: the
 *                       shard's budget alone applies)
 * @param overShareGrace how long a client may hold more than its fair share while its shard is past the
 *                       high-water mark before it is disconnected ({@code memory.over-share-grace})
 */
public record MemorySettings(long budget, long clientShare, Duration overShareGrace) {
    /** No budget, no share: memory is not watched (the test that must run out of heap). */
    public static final MemorySettings OFF = new MemorySettings(0, 0, Duration.ofSeconds(10));

    public MemorySettings {
        Objects.requireNonNull(overShareGrace, "overShareGrace");
        if (budget < 0) throw new IllegalArgumentException("memory.budget must be at least 0, not " + budget);
        if (clientShare < 0) throw new IllegalArgumentException("max-queued-bytes must be at least 0, not " + clientShare);
        if (overShareGrace.isNegative() || overShareGrace.isZero()) {
            throw new IllegalArgumentException("memory.over-share-grace must be longer than 0s, not " + overShareGrace);
        }
    }

    /** Whether budgets are on. */
    public boolean enabled() {
        return budget > 0;
    }

    /** One shard's part of the budget, 0 when budgets are off. */
    public long shardBudget(int shards) {
        return budget / shards;
    }

    /**
     * {@code memory.budget = auto}: half of the heap the JVM may grow to, less the partial-packet budget,
     * which hostile clients may fill at the same time; at least an eighth of the heap. What is left is for
     * the broker itself (Pekko, connections, subscriptions) and the garbage collector's room to work
     * (BENCHMARKS.md, "Memory budgets").
     */
    public static long autoBudget(long maxHeap, long partialPacketBudget) {
        return Math.max(maxHeap / 8, (maxHeap - partialPacketBudget) / 2);
    }

    /** {@code max-queued-bytes = auto}: a quarter of a shard's part of the budget, so that four clients that stop reading fill it. */
    public static long autoShare(long shardBudget) {
        return shardBudget / 4;
    }
}
