package io.pekquitto.shards.memory;

import java.time.Duration;

/**
 * Whether a client has held more than its fair share for too long (README, "Memory budgets"). Once its
 * shard is full (past the high-water mark of its budget, or turning clients away for want of room since
 * the last check), a client holding more than the fair share ({@link MemoryBudget#fairShare()}) is over,
 * and stays over while the shard is above its low-water mark (others taking and letting go move the
 * shard around its high-water mark). Once it has been over for longer than {@code memory.over-share-grace},
 * its connection is closed with 0x97 Quota exceeded, as EMQX closes a connection past its heap limit
 * ({@code force_shutdown}). A client back within its fair share, or a shard back under its low-water
 * mark, starts the grace again. One per connection; time is passed in.
 */
public final class OverShare {
    private final long graceNanos;
    private boolean over;
    /** {@link MemoryBudget#turnedAway()} at the last check. */
    private long turnedAway;
    /** Since when the client has been over, while it is. */
    private long overSince;

    public OverShare(Duration grace) {
        this.graceNanos = grace.toNanos();
    }

    /**
     * The client holds {@code clientHolds} at {@code now}.
     *
     * @return true once it has been over its fair share for longer than the grace: disconnect it
     */
    public boolean isOverTooLong(MemoryBudget budget, long clientHolds, long now) {
        boolean full = budget.isPastHighWater() || budget.turnedAway() != turnedAway;
        turnedAway = budget.turnedAway();
        boolean shardInDanger = over ? budget.isAboveLowWater() : full;
        if (!shardInDanger || clientHolds <= budget.fairShare()) {
            over = false;
            return false;
        }
        if (!over) {
            over = true;
            overSince = now;
        }
        return now - overSince >= graceNanos;
    }

    /** How long the client has been over, in nanoseconds (0 when it is not). */
    public long overFor(long now) {
        return over ? now - overSince : 0;
    }
}
