package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a session holds in the heap against its shard's {@link MemoryBudget}, without a store: its
 * queue, its messages in flight and the bytes its connection reports waiting for the socket count;
 * past the client's share or the shard's budget a message is dropped and counted by the budget.
 */
class SessionMemoryTest {
    /** A shard of 10,000 bytes; each client may hold 1,000. */
    private final MemoryBudget budget = new MemoryBudget(10_000, 1_000);
    private final Session session = new Session("c", 1000, 0, false, budget);
    private final List<Publish> sent = new ArrayList<>();

    /** A message that costs the heap {@code bytes}: its payload and {@link MemoryBudget#MESSAGE_OVERHEAD}. */
    private static Message message(int bytes, QoS qos) {
        return Message.received("t", Binary.of(new byte[bytes - MemoryBudget.MESSAGE_OVERHEAD]), qos, false, Properties.NONE, 0);
    }

    @Test
    void theQueueInFlightAndTheBacklogCountAgainstTheBudget() {
        session.enqueue(message(100, QoS.AT_LEAST_ONCE), false);
        session.enqueue(message(200, QoS.AT_LEAST_ONCE), false);
        assertEquals(300, session.held());
        session.drain(1, 0, sent::add);  // one in flight, one queued: both still held
        assertEquals(300, session.held());
        session.backlog(150);
        assertEquals(450, session.held());
        assertEquals(450, budget.used());
        assertTrue(session.acknowledge(sent.get(0).packetId()));
        assertEquals(350, budget.used());
    }

    @Test
    void pastItsShareAMessageIsDroppedAndCountedByTheBudget() {
        assertEquals(Queueing.QUEUED, session.offer(message(600, QoS.AT_LEAST_ONCE), false, false));
        assertEquals(Queueing.OVER_BUDGET, session.offer(message(500, QoS.AT_LEAST_ONCE), false, false));
        assertEquals(Queueing.QUEUED, session.offer(message(400, QoS.AT_LEAST_ONCE), false, false));
        assertEquals(1, budget.figures().dropped());
        assertEquals(1, session.droppedMessages());
        assertEquals(2, session.queuedCount());
    }

    @Test
    void anOfflineSessionsQueueIsHeldToItsShareToo() {
        for (int i = 0; i < 5; i++) session.enqueue(message(300, QoS.AT_LEAST_ONCE), true);
        assertEquals(3, session.queuedCount());
        assertEquals(2, budget.figures().dropped());
    }

    @Test
    void aClientThatHoldsNothingGetsOneMessageLargerThanItsShare() {
        assertTrue(session.canSendNow(20, message(5_000, QoS.AT_LEAST_ONCE)));
        session.startFlight(message(5_000, QoS.AT_LEAST_ONCE), 0);
        assertFalse(session.canSendNow(20, message(MemoryBudget.MESSAGE_OVERHEAD + 1, QoS.AT_LEAST_ONCE)), "no more while it holds it");
        assertEquals(Queueing.OVER_BUDGET, session.offer(message(MemoryBudget.MESSAGE_OVERHEAD + 1, QoS.AT_LEAST_ONCE), false, false));
    }

    @Test
    void theShardsBudgetBindsEveryClientButOneThatHoldsNothing() {
        session.startFlight(message(100, QoS.AT_LEAST_ONCE), 0);
        var others = new Session("others", 1000, 0, false, budget);
        others.backlog(9_850);  // 9,950 of 10,000
        assertEquals(Queueing.OVER_BUDGET, session.offer(message(100, QoS.AT_LEAST_ONCE), false, false));
        assertFalse(session.mayTake(100), "QoS 0 too");
        var idle = new Session("idle", 1000, 0, false, budget);
        assertTrue(idle.canSendNow(20, message(100, QoS.AT_LEAST_ONCE)), "a client that holds nothing gets one, from the reserve");
        others.backlog(0);
        assertTrue(session.mayTake(100));
    }

    @Test
    void aQueuedMessageGoesOutOnlyWhileTheBacklogLeavesRoomForItsCopy() {
        for (int i = 0; i < 3; i++) session.enqueue(message(300, QoS.AT_LEAST_ONCE), false);
        session.backlog(600);
        session.drain(20, 0, sent::add);
        assertEquals(1, sent.size(), "600 waiting and a copy of 204 fits in 1,000; another does not");
        session.backlog(0);
        session.drain(20, 0, sent::add);
        assertEquals(3, sent.size(), "a client that reads gets them: what this drain sends counts as waiting");
    }

    @Test
    void nothingWaitingForTheSocketAlwaysLetsOneGoOut() {
        var full = new MemoryBudget(1_000, 0);
        var alone = new Session("c", 1000, 0, false, full);
        alone.enqueue(message(600, QoS.AT_LEAST_ONCE), false);
        alone.enqueue(message(600, QoS.AT_LEAST_ONCE), true);  // offline rule: beyond the budget, dropped
        assertEquals(1, alone.queuedCount());
        new Session("other", 1000, 0, false, full).backlog(400);  // the shard is full now
        alone.drain(20, 0, sent::add);
        assertEquals(1, sent.size(), "a client that reads is not held up by a budget others fill");
    }

    @Test
    void aSessionLeavingItsShardTakesWhatItHoldsAlong() {
        session.enqueue(message(100, QoS.AT_LEAST_ONCE), false);
        var other = new MemoryBudget(10_000, 1_000);
        session.memoryTo(other);
        assertEquals(0, budget.used());
        assertEquals(100, other.used());
        session.leaveMemory();
        assertEquals(0, other.used());
        session.enqueue(message(150, QoS.AT_LEAST_ONCE), false);
        assertEquals(0, other.used(), "on its way between shards it counts nowhere");
    }

    @Test
    void aSessionEmptiedAfterItsConnectionFailedHoldsNothing() {
        session.enqueue(message(100, QoS.AT_LEAST_ONCE), false);
        var fresh = session.emptied();
        assertEquals(0, budget.used());
        fresh.enqueue(message(170, QoS.AT_LEAST_ONCE), false);
        assertEquals(170, budget.used(), "the fresh one counts against the same budget");
    }

    @Test
    void takingTheSharedMessagesOutReleasesTheirBytes() {
        session.enqueue(message(100, QoS.AT_LEAST_ONCE).viaShared("$share/g/t"), false);
        session.startFlight(message(200, QoS.AT_LEAST_ONCE).viaShared("$share/g/t"), 0);
        assertEquals(2, session.takeSharedMessages().size());
        assertEquals(0, budget.used());
    }

    @Test
    void withoutAStoreSpillingTheQueueKeepsIt() {
        session.enqueue(message(100, QoS.AT_LEAST_ONCE), true);
        session.spillQueue();
        assertEquals(1, session.queuedInHeap(), "an offline session keeps its queue: there is no store to hold it");
        assertEquals(100, budget.used());
    }
}
