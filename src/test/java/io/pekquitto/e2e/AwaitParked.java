package io.pekquitto.e2e;

import io.pekquitto.shards.shard.ShardCounts;
import java.time.Duration;
import java.util.function.IntPredicate;

/** Waiting for a broker's connections to park (or wake), on {@link Eventually}: one copy for every test that does. */
public final class AwaitParked {
    private AwaitParked() {}

    /** Waits until exactly {@code count} connections of a broker with these counts are parked. */
    public static void exactly(ShardCounts counts, int count, Duration limit) {
        await(counts, "exactly " + count + " parked", parked -> parked == count, limit);
    }

    /** Waits until at least {@code count} connections of a broker with these counts are parked. */
    public static void atLeast(ShardCounts counts, int count, Duration limit) {
        await(counts, "at least " + count + " parked", parked -> parked >= count, limit);
    }

    private static void await(ShardCounts counts, String what, IntPredicate done, Duration limit) {
        Eventually.await(limit, what, counts::parkedTotal, done::test);
    }
}
