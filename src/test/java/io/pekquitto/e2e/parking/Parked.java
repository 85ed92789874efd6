package io.pekquitto.e2e.parking;

import io.pekquitto.e2e.AwaitParked;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.shards.shard.ShardCounts;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/** Waiting for connections to park, and the heap level the park attacks must come back to. */
final class Parked {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    private Parked() {}

    /** Waits until exactly {@code count} connections of the broker are parked. */
    static void await(BrokerExtension broker, int count) throws InterruptedException {
        await(broker.pekquitto().counts(), count);
    }

    /** Waits until exactly {@code count} connections of a broker with these counts are parked. */
    static void await(ShardCounts counts, int count) throws InterruptedException {
        AwaitParked.exactly(counts, count, LIMIT);
    }

    /** Waits until at least {@code count} connections of the broker are parked. */
    static void awaitAtLeast(BrokerExtension broker, int count) throws InterruptedException {
        AwaitParked.atLeast(broker.pekquitto().counts(), count, LIMIT);
    }

    /** Heap in use after full collections: the broker and the test share this JVM, and both are quiet. */
    static long heapLevel() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long level = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
            level = Math.min(level, memory.getHeapMemoryUsage().getUsed());
        }
        return level;
    }
}
