package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retained messages written a batch per turn and read back, their expiry counted on the wall clock. */
class ShardPersistenceTest {
    private final MemoryStore store = new MemoryStore();
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private final AtomicInteger flushesAsked = new AtomicInteger();
    private final ShardPersistence persistence = new ShardPersistence(Optional.of(store), nanos::get, wall::get,
            flushesAsked::incrementAndGet);

    @AfterEach
    void stopWriter() {
        persistence.close();
    }

    private Message retained(String topic, String payload, Properties properties) {
        return Message.received(topic, Binary.of(payload.getBytes(StandardCharsets.UTF_8)), QoS.AT_LEAST_ONCE, true,
                properties, nanos.get());
    }

    /** What a restarted shard reads, its own clock started anew. */
    private List<Message> recovered() {
        var messages = new ArrayList<Message>();
        var restarted = new ShardPersistence(Optional.of(store), () -> 42L, wall::get, () -> {});
        restarted.recoverRetained(messages::add);
        restarted.close();
        return messages;
    }

    @Test
    void aTurnsWritesReachTheStoreAtFlush() {
        persistence.retained(retained("a/b", "one", Properties.NONE));
        persistence.retained(retained("a/c", "two", Properties.NONE));
        assertEquals(1, flushesAsked.get(), "the turn's first write asks the shard for a flush, once");
        assertEquals(List.of(), recovered(), "nothing before the flush");
        persistence.flushNow();
        var messages = recovered();
        assertEquals(2, messages.size());
        var message = messages.get(0);
        assertEquals("a/b", message.topic());
        assertEquals("one", new String(message.payload().toByteArray(), StandardCharsets.UTF_8));
        assertEquals(QoS.AT_LEAST_ONCE, message.qos());
        assertTrue(message.retain());
    }

    @Test
    void anEmptyPayloadRemovesTheStoredMessage() {
        persistence.retained(retained("a/b", "one", Properties.NONE));
        persistence.flushNow();
        persistence.retained(retained("a/b", "", Properties.NONE));
        persistence.flushNow();
        assertEquals(List.of(), recovered());
    }

    @Test
    void timeInTheStoreCountsAgainstTheMessageExpiryInterval() {
        var expiring = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 100L).build();
        persistence.retained(retained("soon", "x", expiring));
        persistence.retained(retained("never", "y", Properties.NONE));
        persistence.flushNow();
        wall.addAndGet(40_000);  // the broker was down for 40 s
        var left = recovered().stream().filter(m -> m.topic().equals("soon")).findFirst().orElseThrow();
        assertEquals(Optional.of(60L), left.toPublish(1, false, 42L).properties().messageExpiryInterval());
        wall.addAndGet(61_000);
        assertEquals(List.of("never"), recovered().stream().map(Message::topic).toList(), "expired while stored");
    }

    @Test
    void withoutAStoreNothingIsKept() {
        var none = new ShardPersistence(Optional.empty(), nanos::get, wall::get, flushesAsked::incrementAndGet);
        none.retained(retained("a", "b", Properties.NONE));
        assertEquals(0, flushesAsked.get(), "nothing batched, no flush needed");
        none.flush();
        assertEquals(0, none.recoverRetained(message -> {}));
        assertFalse(none.isDurable());
        assertFalse(none.journal().isKept());
    }

    @Test
    void behindTheShardAWriterThreadWritesTheBatchesAndSaysWhichAreDone() throws InterruptedException {
        var written = new LinkedBlockingQueue<Long>();
        var behind = new ShardPersistence(Optional.of(store), StoreHealth.none(), nanos::get, wall::get, () -> {}, 100, true, "test-writer",
                written::add, failure -> {});
        try {
            assertTrue(behind.writesBehind());
            behind.retained(retained("w/1", "one", Properties.NONE));
            assertEquals(1, behind.flush(), "batch 1, handed over");
            assertEquals(Long.valueOf(1), written.poll(10, TimeUnit.SECONDS));
            assertEquals(1, behind.flush(), "nothing new: the last batch");
            behind.retained(retained("w/2", "two", Properties.NONE));
            behind.flushNow();
            assertEquals(List.of("w/1", "w/2"), recovered().stream().map(Message::topic).sorted().toList());
        } finally {
            behind.close();
        }
        assertFalse(persistence.writesBehind(), "durability batch: written on the shard's thread");
    }

    @Test
    void withDurabilityBatchAFailedWriteIsKeptWithWhatFollowsAndWrittenInOrderOnceTheStoreWritesAgain() {
        var diskFull = new AtomicBoolean();
        var attempts = new AtomicInteger();
        var flaky = new InterceptedStore(store, batch -> {
            attempts.incrementAndGet();
            if (diskFull.get()) throw new StoreException("No space left on device", null);
        });
        var health = new StoreHealth("store", nanos::get);
        var onThread = new ShardPersistence(Optional.of(flaky), health, nanos::get, wall::get, () -> {}, 100, false,
                "unused", written -> {}, failure -> {});
        onThread.retained(retained("f/1", "one", Properties.NONE));
        assertEquals(1, onThread.flush());
        assertEquals(1, onThread.written());

        diskFull.set(true);
        onThread.retained(retained("f/2", "two", Properties.NONE));
        assertEquals(2, onThread.flush(), "numbered as ever");
        assertEquals(1, onThread.written(), "not written");
        assertTrue(onThread.hasUnwritten());
        assertTrue(health.isFailing(), "the broker hears of it");
        assertFalse(onThread.flushNow(), "nothing waits for a store that fails");

        diskFull.set(false);  // room again, but the store is not known to write until it recovers
        onThread.retained(retained("f/3", "three", Properties.NONE));
        onThread.flush();
        assertEquals(2, attempts.get(), "kept behind the failed write, not tried");
        assertEquals(List.of("f/1"), recovered().stream().map(Message::topic).toList());

        health.recovered();
        onThread.retry();
        assertFalse(onThread.hasUnwritten());
        assertEquals(3, onThread.written());
        assertEquals(3, attempts.get(), "what was kept, in one write");
        assertEquals(List.of("f/1", "f/2", "f/3"), recovered().stream().map(Message::topic).sorted().toList());
    }
}
