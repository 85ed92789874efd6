package io.pekquitto.shards.stats;

/**
 * One shard's memory budget at one moment (README, "Memory budgets").
 *
 * @param used            bytes counted against the budget: what clients hold in the heap, the shard's part
 *                        of the retained messages, and an estimate per session
 * @param budget          the shard's budget, 0 when budgets are off
 * @param dropped         messages dropped because the budget or a client's share had no room, since the shard started
 * @param disconnected    clients disconnected with 0x97 for holding more than their fair share too long
 * @param sessionsRefused CONNECTs refused with 0x97 (3 in 3.1.1) that would have made a new persistent session
 * @param retainedRefused retained messages not retained
 */
public record MemoryFigures(long used, long budget, long dropped, long disconnected, long sessionsRefused,
                            long retainedRefused) {
    public static final MemoryFigures NONE = new MemoryFigures(0, 0, 0, 0, 0, 0);
}
