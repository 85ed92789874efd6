package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The writer thread: batches in order, those handed over during a write go together into the next one; a
 * failed write is kept, with what follows, until the store writes again.
 */
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
    void whatIsBeingWrittenAndWhatWaitsAreUnwrittenUntilWritten() throws Exception {
        var writer = new StoreWriter(slowStore, "test-writer", written::add, failure -> {});
        try {
            writer.submit(batch("a"), 1);
            assertTrue(firstWriteStarted.await(10, TimeUnit.SECONDS));
            writer.submit(batch("b", "c"), 2);
            assertEquals(List.of("a", "b", "c"), keys(writer.unwritten(Keyspace.QUEUED, new byte[0], null)),
                    "being written, then waiting, in order");
            assertEquals(List.of("b"), keys(writer.unwritten(Keyspace.QUEUED, bytes("b"), bytes("c"))), "those that meet the range read");
            assertEquals(List.of(), writer.unwritten(Keyspace.RETAINED, new byte[0], null), "of the keyspace asked for only");
            release.countDown();
            assertTrue(writer.awaitWritten(2));
            assertEquals(List.of(), writer.unwritten(Keyspace.QUEUED, new byte[0], null));
        } finally {
            writer.close();
        }
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> keys(List<StoreBatch.Write> writes) {
        return writes.stream().map(write -> new String(write.key(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aFailedWriteStallsTheWriterUntilRetriedThenItAndWhatCameSinceAreWrittenInOrder() throws Exception {
        var failure = new AtomicReference<StoreException>();
        var failed = new CountDownLatch(1);
        var diskFull = new AtomicBoolean(true);
        var attempts = new CopyOnWriteArrayList<List<String>>();
        var store = new InterceptedStore(batch -> {
            attempts.add(batch.writes().stream().map(write -> new String(write.key(), StandardCharsets.UTF_8)).toList());
            if (diskFull.get()) throw new StoreException("disk full", null);
        });
        var writer = new StoreWriter(store, "failing-writer", written::add, cause -> {
            failure.set(cause);
            failed.countDown();
        });
        try {
            writer.submit(batch("a"), 1);
            assertTrue(failed.await(10, TimeUnit.SECONDS));
            assertEquals("disk full", failure.get().getMessage());
            assertTrue(writer.isStalled());
            assertFalse(writer.awaitWritten(1), "stalled: a wait returns at once, nothing written");
            writer.submit(batch("b"), 2);  // kept behind the failed one, not tried
            assertEquals(1, attempts.size(), "nothing is tried until the store writes again");
            assertEquals(List.of(), written);
            diskFull.set(false);
            writer.retry();
            assertTrue(writer.awaitWritten(2));
            assertEquals(List.of(List.of("a"), List.of("a", "b")), attempts, "the failed writes first, then what came since");
            assertEquals(List.of(2L), written);
            assertFalse(writer.isStalled());
        } finally {
            writer.close();
        }
    }
}
