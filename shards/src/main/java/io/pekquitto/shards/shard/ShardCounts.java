package io.pekquitto.shards.shard;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Connections per shard, live and parked, written by each shard and read by anyone: the placement
 * (least connections) and the broker's owner (tests, and later $SYS and metrics).
 *
 * @param connections open connections per shard, parked ones included; the listener counts a new one in
 * @param parked      parked connections per shard
 */
public record ShardCounts(AtomicIntegerArray connections, AtomicIntegerArray parked) {

    public ShardCounts(int shards) {
        this(new AtomicIntegerArray(shards), new AtomicIntegerArray(shards));
    }

    /** Connections on every shard, parked ones included. */
    public int connectionsTotal() {
        return sum(connections);
    }

    /** Parked connections on every shard. */
    public int parkedTotal() {
        return sum(parked);
    }

    private static int sum(AtomicIntegerArray perShard) {
        int total = 0;
        for (int i = 0; i < perShard.length(); i++) total += perShard.get(i);
        return total;
    }
}
