package io.pekquitto.shards.connection;

/**
 * The bytes all connections of one shard may hold in packets that have not fully arrived. Each
 * connection's reader keeps a packet's body until its last byte comes, up to {@code max-packet-size};
 * without a bound for the shard, a few thousand hostile clients that each send most of a large packet
 * and stop would hold the heap. Past the budget, the connection that asks for more is refused (0x97
 * Quota exceeded) instead of the broker running out of memory. Used on the shard's thread only.
 */
public final class PartialPacketBudget {
    private final long limit;
    private long held;

    /** @param limit the bytes the shard's connections may hold together, more than zero */
    public PartialPacketBudget(long limit) {
        if (limit <= 0) throw new IllegalArgumentException("partial packet budget " + limit);
        this.limit = limit;
    }

    /**
     * A connection now holds {@code now} bytes where it held {@code before}.
     *
     * @return false if the connection grew its share and the shard is now past its budget: refuse it
     */
    boolean change(long before, long now) {
        held += now - before;
        return now <= before || held <= limit;
    }

    /** The bytes held now, by all the shard's connections. */
    public long held() {
        return held;
    }
}
