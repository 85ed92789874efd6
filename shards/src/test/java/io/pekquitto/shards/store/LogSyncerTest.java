package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/** The syncer thread: batches written during a sync are synced together by the next one. */
class LogSyncerTest {
    private final List<Long> synced = new CopyOnWriteArrayList<>();
    private final AtomicInteger syncs = new AtomicInteger();
    private final CountDownLatch firstSyncStarted = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** A store in memory whose syncs are the test's. */
    private abstract static class Disk implements Store {
        private final MemoryStore kept = new MemoryStore();

        @Override
        public void write(StoreBatch batch) {
            kept.write(batch);
        }

        @Override
        public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
            return kept.get(keyspace, key);
        }

        @Override
        public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
            kept.scan(keyspace, from, to, entry);
        }

        @Override
        public void close() {}
    }

    /** A store whose first sync blocks until released, as a slow disk would. */
    private final Store slowDisk = new Disk() {
        @Override
        public void sync() {
            syncs.incrementAndGet();
            firstSyncStarted.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    };

    @Test
    void batchesWrittenDuringASyncAreSyncedTogetherByTheNext() throws Exception {
        var syncer = new LogSyncer(slowDisk, "test-syncer", synced::add, failure -> {});
        try {
            syncer.written(1);
            assertTrue(firstSyncStarted.await(10, TimeUnit.SECONDS));
            syncer.written(2);  // the shard goes on while batch 1 is synced
            syncer.written(3);
            release.countDown();
            assertTrue(syncer.awaitSynced(3));
            assertEquals(2, syncs.get(), "batch 1 alone, then 2 and 3 in one sync");
            assertEquals(List.of(1L, 3L), synced);
        } finally {
            syncer.close();
        }
    }

    @Test
    void aFailedSyncIsReportedAndNothingAfterItCountsAsSynced() throws Exception {
        var failure = new AtomicReference<StoreException>();
        var failingDisk = new Disk() {
            @Override
            public void sync() {
                throw new StoreException("disk full", null);
            }
        };
        var failing = new LogSyncer(failingDisk, "failing-syncer", synced::add, failure::set);
        try {
            failing.written(1);
            assertFalse(failing.awaitSynced(1), "the syncer stopped");
            assertEquals("disk full", failure.get().getMessage());
            assertEquals(List.of(), synced);
        } finally {
            failing.close();
        }
    }
}
