package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A persistent session's queue past {@code store.queued-in-memory} waits in the store alone and is read
 * back in order as it drains: memory holds the window, the limits count every message, and nothing is
 * delivered twice or lost on the way, after a restart too.
 */
class QueuePagingTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int WINDOW = 4;
    private final MemoryStore store = new MemoryStore();
    private final AtomicLong nanos = new AtomicLong(7 * SECOND);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private final ShardPersistence persistence = persistence(nanos.get());

    @AfterEach
    void close() {
        persistence.close();
    }

    private ShardPersistence persistence(long clock) {
        return new ShardPersistence(Optional.of(store), StoreHealth.none(), () -> clock == 0 ? nanos.get() : clock, wall::get, () -> {},
                WINDOW, false, "unused", synced -> {}, failure -> {});
    }

    private Message message(int n, QoS qos, Properties properties) {
        return Message.received("t/" + n, Binary.utf8("m" + n), qos, false, properties, nanos.get());
    }

    private Message message(int n) {
        return message(n, QoS.AT_LEAST_ONCE, Properties.NONE);
    }

    private Session session(ShardPersistence kept, int maxQueued) {
        var session = new Session("c", maxQueued, true);
        session.journalTo(kept.journal());
        kept.journal().session("c", 3600, Map.of(), SessionJournal.CONNECTED);
        return session;
    }

    private int storedMessages() {
        persistence.flush();
        int[] count = {0};
        store.forEach(Keyspace.QUEUED, (key, value) -> count[0]++);
        return count[0];
    }

    /** Drains with room for everything, acknowledging each QoS 1 delivery; the payloads in order. */
    private static List<String> drainAll(Session session, List<Integer> heapSeen) {
        var delivered = new ArrayList<String>();
        var publishes = new ArrayList<Publish>();
        while (session.queuedCount() > 0) {
            int before = publishes.size();
            session.drain(2, 8 * SECOND, publish -> {
                publishes.add(publish);
                heapSeen.add(session.queuedInHeap());
            });
            if (publishes.size() == before) throw new AssertionError("nothing drained with " + session.queuedCount() + " queued");
            for (var publish : publishes.subList(before, publishes.size())) {
                delivered.add(publish.payload().asUtf8());
                if (publish.qos() == QoS.AT_LEAST_ONCE) session.acknowledge(publish.packetId());
            }
        }
        return delivered;
    }

    private static List<String> payloads(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(n -> "m" + n).toList();
    }

    @Test
    void anOfflineQueueHoldsTheWindowInMemoryAndTheRestInTheStore() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 20; n++) assertTrue(session.enqueue(message(n), true));
        assertEquals(20, session.queuedCount());
        assertEquals(WINDOW, session.queuedInHeap(), "the rest waits in the store alone");
        assertEquals(20, storedMessages());
        var heapSeen = new ArrayList<Integer>();
        assertEquals(payloads(1, 20), drainAll(session, heapSeen), "in order, each once");
        assertTrue(heapSeen.stream().allMatch(held -> held <= WINDOW), "never more than the window in memory: " + heapSeen);
        assertEquals(0, storedMessages(), "every acknowledged message is gone from the store");
    }

    @Test
    void theLimitsCountTheMessagesInTheStore() {
        var session = session(persistence, 10);
        for (int n = 1; n <= 10; n++) assertTrue(session.enqueue(message(n), true));
        assertFalse(session.enqueue(message(11), true), "max-queued-messages counts the spilled ones");
        assertEquals(1, session.droppedMessages());
        assertEquals(10, storedMessages(), "the dropped one is not written");
    }

    @Test
    void aMessageThatExpiredInTheStoreIsNotDelivered() {
        var session = session(persistence, 1000);
        var expiring = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 1L).build();
        for (int n = 1; n <= 10; n++) session.enqueue(message(n, QoS.AT_LEAST_ONCE, n == 8 ? expiring : Properties.NONE), true);
        wall.addAndGet(5_000);  // message 8 waited 5 s in the store
        var delivered = drainAll(session, new ArrayList<>());
        assertEquals(payloads(1, 10).stream().filter(p -> !p.equals("m8")).toList(), delivered);
        assertEquals(0, storedMessages(), "the expired one is deleted too");
    }

    @Test
    void qos0QueuedForAnOfflineClientIsStoredAndSentOnce() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 8; n++) session.enqueue(message(n, n % 2 == 0 ? QoS.AT_MOST_ONCE : QoS.AT_LEAST_ONCE, Properties.NONE), true);
        assertEquals(8, storedMessages(), "QoS 0 is kept for an offline client too");
        assertEquals(payloads(1, 8), drainAll(session, new ArrayList<>()));
        assertEquals(0, storedMessages());
    }

    @Test
    void aMessageOnItsWayToTheConnectionIsNotReadBackAsQueued() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 10; n++) session.enqueue(message(n), true);  // queued while offline
        var routed = message(11);  // the client is back
        session.routed(routed);  // journaled as the shard routes it; the connection has not taken it yet
        session.enqueue(message(12), false);  // journaled after it, and spilled: behind the spilled ones
        var delivered = new ArrayList<>(payloads(1, 10));
        delivered.add("m12");
        assertEquals(delivered, drainAll(session, new ArrayList<>()), "message 11 is the connection's, not the queue's");
        var sent = new ArrayList<Publish>();
        assertTrue(session.canSendNow(2, routed));
        sent.add(session.startFlight(routed, 8 * SECOND));
        assertEquals("m11", sent.get(0).payload().asUtf8());
        session.acknowledge(sent.get(0).packetId());
        assertEquals(0, storedMessages());
    }

    @Test
    void anAttachedClientsQueueStaysInMemory() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 10; n++) session.enqueue(message(n), false);  // a slow attached client
        assertEquals(10, session.queuedInHeap(), "it drains soon: no write and read back for it");
        assertEquals(payloads(1, 10), drainAll(session, new ArrayList<>()));
    }

    @Test
    void aNewMessageQueuesBehindTheSpilledOnes() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 6; n++) session.enqueue(message(n), true);
        var first = new ArrayList<Publish>();
        session.drain(1, 8 * SECOND, first::add);  // one in flight, five queued, one of them in the store
        assertFalse(session.canSendNow(5, message(7)), "queued messages go first");
        session.enqueue(message(7), false);
        session.acknowledge(first.get(0).packetId());
        assertEquals(payloads(2, 7), drainAll(session, new ArrayList<>()));
    }

    @Test
    void aRestartReadsBackOnlyTheWindowAndTheQueueDrainsInOrder() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 25; n++) session.enqueue(message(n), true);
        var first = new ArrayList<Publish>();
        session.drain(2, 8 * SECOND, first::add);  // two in flight when the broker stops
        persistence.flushNow();
        var restarted = persistence(3 * SECOND);
        var recovered = restarted.recoverSessions(0, 1, id -> new Session(id, 1000, true)).get(0).session();
        assertEquals(25, recovered.queuedCount() + recovered.inflightCount());
        assertTrue(recovered.queuedInHeap() <= WINDOW, "the window, not the queue: " + recovered.queuedInHeap());
        assertEquals(payloads(1, 25), drainAll(recovered, new ArrayList<>()), "the two in flight are sent again first");
        restarted.close();
        assertEquals(0, storedMessages());
    }

    @Test
    void anEndingSessionGivesAwayItsSharedMessagesFromTheStoreToo() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 12; n++) {
            var message = message(n);
            session.enqueue(n % 3 == 0 ? message.viaShared("$share/g/t/#") : message, true);
        }
        var taken = session.takeSharedMessages().stream().map(m -> m.payload().asUtf8()).toList();
        assertEquals(List.of("m3", "m6", "m9", "m12"), taken);
    }

    @Test
    void anEmptiedSessionLeavesNothingOfItsQueueInTheStore() {
        var session = session(persistence, 1000);
        for (int n = 1; n <= 12; n++) session.enqueue(message(n), true);
        var fresh = session.emptied();
        assertEquals(0, fresh.queuedCount());
        assertEquals(0, storedMessages());
        fresh.enqueue(message(13), true);
        assertEquals(List.of("m13"), drainAll(fresh, new ArrayList<>()), "and sequence numbers go on");
    }

    @Test
    void offlineQos0InTheStoreIsDroppedWhenTheClientGoesOfflineWithoutQueueingIt() {
        var session = new Session("c", 1000, false);
        session.journalTo(persistence.journal());
        for (int n = 1; n <= 5; n++) session.enqueue(message(n), true);
        // Back online, behind the spilled message 5: QoS 0 spills too, to keep the order.
        for (int n = 6; n <= 10; n++) session.enqueue(message(n, QoS.AT_MOST_ONCE, Properties.NONE), false);
        assertEquals(WINDOW, session.queuedInHeap());
        session.dropQueuedQos0();  // the client went offline again, queue-qos0-messages off
        assertEquals(payloads(1, 5), drainAll(session, new ArrayList<>()));
        assertEquals(0, storedMessages());
    }

    @Test
    void withAWriterThreadAReadWaitsForTheWritesItMustSee() {
        var slow = new InterceptedStore(store, InterceptedStore.sleeping(50));  // writes take 50 ms
        var behind = new ShardPersistence(Optional.of(slow), StoreHealth.none(), nanos::get, wall::get, () -> {}, WINDOW, true, "test-writer",
                written -> {}, failure -> {});
        try {
            var session = session(behind, 1000);
            for (int n = 1; n <= 20; n++) session.enqueue(message(n), true);
            behind.flush();  // handed to the writer, which takes its time
            assertEquals(payloads(1, 20), drainAll(session, new ArrayList<>()));
        } finally {
            behind.close();
        }
    }
}
