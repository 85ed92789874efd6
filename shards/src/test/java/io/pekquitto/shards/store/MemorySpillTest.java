package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Queueing;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A persistent session a store keeps, past its share of the memory budget: QoS 1/2 waits in the store
 * alone instead of being dropped, whether its client is connected or not, and is read back as far as
 * the budget has room; nothing is lost or delivered twice.
 */
class MemorySpillTest {
    private static final long SECOND = 1_000_000_000L;
    /** Each message's payload is 100 bytes; a client may hold 3 of them. */
    private static final int SIZE = 100;
    private static final int COST = SIZE + MemoryBudget.MESSAGE_OVERHEAD;
    private final MemoryStore store = new MemoryStore();
    private final ShardPersistence persistence = new ShardPersistence(Optional.of(store), StoreHealth.none(),
            () -> 7 * SECOND, () -> 1_800_000_000_000L, () -> {}, 100, false, "unused", synced -> {}, failure -> {});
    private final MemoryBudget budget = new MemoryBudget(100_000, 3 * COST);
    private final Session session = new Session("c", 1000, 0, true, budget);

    @AfterEach
    void close() {
        persistence.close();
    }

    private Session kept() {
        session.journalTo(persistence.journal());
        persistence.journal().session("c", 3600, Map.of(), SessionJournal.CONNECTED);
        return session;
    }

    private static Message message(int n, QoS qos) {
        var payload = new byte[SIZE];
        payload[0] = (byte) n;
        return Message.received("t", Binary.wrap(payload), qos, false, Properties.NONE, 7 * SECOND);
    }

    /** Drains with room in flight for 2, acknowledging as it goes; the numbers delivered, in order. */
    private List<Integer> drainAll() {
        var delivered = new ArrayList<Integer>();
        var publishes = new ArrayList<Publish>();
        while (session.queuedCount() > 0) {
            int before = publishes.size();
            session.drain(2, 8 * SECOND, publishes::add);
            if (publishes.size() == before) throw new AssertionError("nothing drained with " + session.queuedCount() + " queued");
            for (var publish : publishes.subList(before, publishes.size())) {
                delivered.add((int) publish.payload().toByteArray()[0]);
                assertTrue(session.held() <= 3 * COST + 2 * SIZE, "held " + session.held());
                if (publish.qos() == QoS.AT_LEAST_ONCE) session.acknowledge(publish.packetId());
            }
        }
        return delivered;
    }

    @Test
    void pastItsShareAConnectedClientsMessagesWaitInTheStore() {
        kept();
        for (int n = 1; n <= 10; n++) assertEquals(Queueing.QUEUED, session.offer(message(n, QoS.AT_LEAST_ONCE), false, false));
        assertEquals(10, session.queuedCount());
        assertEquals(3, session.queuedInHeap(), "its share holds three; the rest are in the store alone");
        assertEquals(3 * COST, budget.used());
        assertEquals(0, budget.figures().dropped());
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), drainAll(), "read back as the budget has room, in order, each once");
        assertEquals(0, budget.used());
    }

    @Test
    void qos0ToAConnectedClientIsDroppedPastItsShareEvenWithAStore() {
        kept();
        for (int n = 1; n <= 3; n++) session.offer(message(n, QoS.AT_LEAST_ONCE), false, false);
        assertEquals(Queueing.OVER_BUDGET, session.offer(message(4, QoS.AT_MOST_ONCE), false, false));
        assertEquals(1, budget.figures().dropped());
    }

    @Test
    void qos0KeptForAnOfflineClientWaitsInTheStore() {
        kept();
        for (int n = 1; n <= 6; n++) assertEquals(Queueing.QUEUED, session.offer(message(n, QoS.AT_MOST_ONCE), true, false));
        assertEquals(3, session.queuedInHeap());
        assertEquals(List.of(1, 2, 3, 4, 5, 6), drainAll());
    }

    @Test
    void spillingTheQueueFreesTheHeapAndLosesNothing() {
        kept();
        for (int n = 1; n <= 3; n++) session.offer(message(n, QoS.AT_LEAST_ONCE), false, false);
        session.spillQueue();
        assertEquals(0, session.queuedInHeap());
        assertEquals(0, budget.used());
        assertEquals(3, session.queuedCount());
        assertEquals(List.of(1, 2, 3), drainAll());
    }

    @Test
    void aSessionRecoveredFromTheStoreHoldsOnlyWhatTheBudgetHasRoomFor() {
        kept();
        for (int n = 1; n <= 8; n++) session.restore(n, message(n, QoS.AT_LEAST_ONCE), 0, false);
        assertEquals(3, session.queuedInHeap());
        assertEquals(8, session.queuedCount());
    }
}
