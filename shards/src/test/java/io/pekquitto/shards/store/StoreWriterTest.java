package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The writer thread: batches in order, those handed over during a write go together into the next one. */
class StoreWriterTest {
    private final List<Integer> writeSizes = new CopyOnWriteArrayList<>();
    private final List<Long> written = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstWriteStarted = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** A store whose first write blocks until released, as a slow fsync would. */
    private final Store slowStore = new InterceptedStore(batch -> {
        writeSizes.add(batch.writes().size());
        firstWriteStarted.countDown();
        try {
            release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    });

    private static List<StoreBatch.Write> batch(String... keys) {
        var batch = new StoreBatch();
        for (var key : keys) batch.put(Keyspace.QUEUED, key.getBytes(StandardCharsets.UTF_8), new byte[] {1});
        return batch.take();
    }

    @Test
    void batchesHandedOverDuringAWriteGoTogetherIntoTheNext() throws Exception {
        var writer = new StoreWriter(slowStore, "test-writer", written::add, failure -> {});
        try {
            writer.submit(batch("a"), 1);
            assertTrue(firstWriteStarted.await(10, TimeUnit.SECONDS));
            writer.submit(batch("b", "c"), 2);  // the shard goes on while batch 1 is written
            writer.submit(batch("d"), 3);
            release.countDown();
            assertTrue(writer.awaitWritten(3));
            assertEquals(List.of(1, 3), writeSizes, "batch 1 alone, then 2 and 3 in one write");
            assertEquals(List.of(1L, 3L), written);
            assertTrue(slowStore.get(Keyspace.QUEUED, "d".getBytes(StandardCharsets.UTF_8)).isPresent());
        } finally {
            writer.close();
        }
    }

    @Test
    void aFailedWriteIsReportedAndNothingAfterItIsWritten() throws Exception {
        var failure = new AtomicReference<StoreException>();
        var fullDisk = new InterceptedStore(batch -> {
            throw new StoreException("disk full", null);
        });
        var failing = new StoreWriter(fullDisk, "failing-writer", written::add, failure::set);
        try {
            failing.submit(batch("a"), 1);
            assertFalse(failing.awaitWritten(1), "the writer stopped");
            assertEquals("disk full", failure.get().getMessage());
            assertEquals(List.of(), written);
        } finally {
            failing.close();
        }
    }
}
