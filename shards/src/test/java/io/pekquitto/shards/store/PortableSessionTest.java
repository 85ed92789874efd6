package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionExport;
import io.pekquitto.shards.session.SessionImport;
import io.pekquitto.shards.session.SessionJournal;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A persistent session leaves one node's store for another's: exported from a shard's journal over the
 * first store (what waits in it alone read back, writes not yet written included) and imported into a
 * shard's journal over the second, it delivers the same messages in the same order, its exchanges in
 * flight under the same packet identifiers and in the same states, there and after a recovery from the
 * second store alone; the first store keeps nothing of it.
 */
class PortableSessionTest {
    static final String CLIENT = "client";
    static final long SECOND = 1_000_000_000L;
    static final int WINDOW = 4;
    static final Map<String, SubscriptionEntry> SUBSCRIPTIONS = Map.of(
            "jobs/+", new SubscriptionEntry(SubscriptionOptions.of(QoS.EXACTLY_ONCE), 7),
            "$share/g/alerts/#", new SubscriptionEntry(new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, true, 2), 0));

    private final AtomicLong nanos = new AtomicLong(100 * SECOND);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private final MemoryStore first = new MemoryStore();
    private final MemoryStore second = new MemoryStore();

    ShardPersistence persistence(Store store) {
        return new ShardPersistence(Optional.of(store), StoreHealth.none(), nanos::get, wall::get, () -> {}, WINDOW, false,
                "unused", written -> {}, failure -> {});
    }

    Message message(int n, QoS qos) {
        return Message.received("jobs/" + n, Binary.utf8("m" + n), qos, false, Properties.NONE, nanos.get());
    }

    /**
     * A persistent session as its shard hands it over, offline: m1 awaiting PUBACK, m2 awaiting PUBREC, m3
     * awaiting PUBCOMP, 10 and 11 from the client awaiting PUBREL, m4 to m15 queued (past the window in the
     * store alone, m14 and m15 not written yet), two subscriptions and a will due in 30 s.
     */
    MigratedSession heldSession(ShardPersistence persistence) {
        return heldSession(persistence, persistence.journal());
    }

    MigratedSession heldSession(ShardPersistence persistence, SessionJournal journal) {
        long now = nanos.get();
        var session = new Session(CLIENT, 1000, 0, false, MemoryBudget.NONE);
        session.journalTo(journal);
        journal.session(CLIENT, 3600, SUBSCRIPTIONS, SessionJournal.CONNECTED);
        assertEquals(1, session.startFlight(message(1, QoS.AT_LEAST_ONCE), now).packetId());
        assertEquals(2, session.startFlight(message(2, QoS.EXACTLY_ONCE), now).packetId());
        assertEquals(3, session.startFlight(message(3, QoS.EXACTLY_ONCE), now).packetId());
        session.received(3);
        for (int packetId : List.of(10, 11)) {
            session.firstReceipt(packetId);
            journal.awaitingPubRel(CLIENT, packetId, true);  // as the shard journals it with the message it routes
        }
        for (int n = 4; n <= 13; n++) session.enqueue(message(n, n % 3 == 0 ? QoS.EXACTLY_ONCE : QoS.AT_LEAST_ONCE), true);
        persistence.flush();
        for (int n = 14; n <= 15; n++) session.enqueue(message(n, QoS.AT_LEAST_ONCE), true);
        var will = PendingWill.delayed(Message.received("will/client", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false,
                Properties.NONE, now), 30, now);
        journal.will(CLIENT, will);
        journal.session(CLIENT, 3600, SUBSCRIPTIONS, now);
        assertEquals(WINDOW, session.queuedInHeap(), "the rest of the queue waits in the store alone");
        return new MigratedSession(session, SUBSCRIPTIONS, 3600, now + 3600 * SECOND, Optional.of(will), false);
    }

    /** What the session held delivers when its client resumes it. */
    static List<String> expectedDeliveries() {
        var expected = new ArrayList<>(List.of("PUBLISH 1 dup AT_LEAST_ONCE m1", "PUBLISH 2 dup EXACTLY_ONCE m2", "PUBREL 3"));
        IntStream.rangeClosed(4, 15).forEach(n -> expected.add((n % 3 == 0 && n <= 13 ? "EXACTLY_ONCE" : "AT_LEAST_ONCE") + " m" + n));
        return expected;
    }

    /** The same after a recovery, which keeps the packet identifiers of QoS 2 alone: m1 (QoS 1) goes again as new, first of the queue. */
    static List<String> expectedAfterRecovery() {
        var expected = new ArrayList<>(List.of("PUBLISH 2 dup EXACTLY_ONCE m2", "PUBREL 3", "AT_LEAST_ONCE m1"));
        expected.addAll(expectedDeliveries().subList(3, 15));
        return expected;
    }

    static int entriesOf(MemoryStore store) {
        int[] count = {0};
        for (var keyspace : List.of(Keyspace.SESSIONS, Keyspace.QUEUED, Keyspace.IN_FLIGHT, Keyspace.WILLS)) {
            store.forEach(keyspace, (key, value) -> count[0]++);
        }
        return count[0];
    }

    @Test
    void aSessionExportedFromOneStoreAndImportedIntoAnotherDeliversTheSameBeforeAndAfterARecovery() {
        var sending = persistence(first);
        var portable = SessionExport.export(heldSession(sending), sending.journal(), nanos.get());

        assertEquals(List.of(new PortableSession.InFlight(1, message(1, QoS.AT_LEAST_ONCE), false),
                new PortableSession.InFlight(2, message(2, QoS.EXACTLY_ONCE), false),
                new PortableSession.InFlight(3, message(3, QoS.EXACTLY_ONCE), true)), portable.inFlight());
        assertEquals(IntStream.rangeClosed(4, 15).mapToObj(n -> "m" + n).toList(),
                portable.queued().stream().map(m -> m.payload().asUtf8()).toList(), "every queued message, in order");
        assertEquals(Set.of(10, 11), portable.awaitingPubRel());
        assertEquals(SUBSCRIPTIONS, portable.subscriptions());
        assertEquals(Optional.of(Duration.ofHours(1)), portable.expiresIn());
        assertEquals(Duration.ofSeconds(30), portable.will().orElseThrow().dueIn());
        assertEquals(new PortableSession.Limits(1000, 0, false), portable.limits());
        sending.flushNow();
        assertEquals(0, entriesOf(first), "the first store holds nothing of the session");

        nanos.addAndGet(5 * SECOND);  // the receiving node: later, on a clock of its own
        var receiving = persistence(second);
        var arrived = SessionImport.rebuild(portable, receiving.journal(), MemoryBudget.NONE, nanos.get());
        assertEquals(nanos.get() + 3600 * SECOND, arrived.expiresAt());
        assertEquals(nanos.get() + 30 * SECOND, arrived.will().orElseThrow().publishAt());
        assertEquals(SUBSCRIPTIONS, arrived.subscriptions());
        var session = arrived.session();
        assertEquals(12, session.queuedCount());
        assertEquals(WINDOW, session.queuedInHeap(), "held in the heap as a recovered session is: the window");
        assertEquals(2, session.awaitingPubRelCount());
        receiving.flushNow();

        var restarted = persistence(second).recoverSessions(0, 1, id -> new Session(id, 1000, false));
        assertEquals(1, restarted.size());
        var recovered = restarted.get(0);
        assertEquals(SUBSCRIPTIONS, recovered.subscriptions());
        assertEquals(3600, recovered.expiryInterval());
        assertEquals(nanos.get() + 30 * SECOND, recovered.will().orElseThrow().publishAt());
        assertEquals(2, recovered.session().awaitingPubRelCount());
        assertEquals(expectedAfterRecovery(), SessionDeliveries.of(recovered.session(), nanos.get()));

        assertEquals(expectedDeliveries(), SessionDeliveries.of(session, nanos.get()), "the same messages, ids and states");
        assertTrue(session.release(10) && session.release(11), "10 and 11 still await PUBREL");
    }

    @Test
    void anImportedQueueTheBudgetHasNoRoomForWaitsInTheStoreAlone() {
        var sending = persistence(first);
        var portable = SessionExport.export(heldSession(sending), sending.journal(), nanos.get());
        var receiving = persistence(second);
        var tight = new MemoryBudget(0, 200);  // the client's share: its three messages in flight fill it
        var session = SessionImport.rebuild(portable, receiving.journal(), tight, nanos.get()).session();
        assertEquals(12, session.queuedCount());
        assertEquals(0, session.queuedInHeap(), "none of the queue in the heap: the budget has no room");
        assertEquals(expectedDeliveries(), SessionDeliveries.of(session, nanos.get()), "read back from the store as it drains");
    }

    @Test
    void anImportReplacesWhatAnEarlierStayLeftInTheStore() {
        var earlier = persistence(second);  // the client was on this node once, and a crash left its records
        earlier.journal().session(CLIENT, 60, Map.of("old/#", SUBSCRIPTIONS.get("jobs/+")), nanos.get());
        earlier.journal().message(CLIENT, 99, message(99, QoS.AT_LEAST_ONCE));
        earlier.journal().awaitingPubRel(CLIENT, 42, true);
        earlier.journal().will(CLIENT, PendingWill.delayed(message(98, QoS.AT_MOST_ONCE), 5, nanos.get()));
        earlier.flushNow();
        var sending = persistence(first);
        var portable = SessionExport.export(heldSession(sending), sending.journal(), nanos.get());
        var receiving = persistence(second);
        var withoutWill = new PortableSession(CLIENT, portable.limits(), portable.inFlight(), portable.queued(),
                portable.awaitingPubRel(), 0, SUBSCRIPTIONS, 3600, portable.expiresIn(), Optional.empty());
        SessionImport.rebuild(withoutWill, receiving.journal(), MemoryBudget.NONE, nanos.get());
        receiving.flushNow();
        var recovered = persistence(second).recoverSessions(0, 1, id -> new Session(id, 1000, false)).get(0);
        assertEquals(SUBSCRIPTIONS, recovered.subscriptions());
        assertEquals(3600, recovered.expiryInterval());
        assertEquals(Optional.empty(), recovered.will(), "the old will went with the rest");
        assertEquals(2, recovered.session().awaitingPubRelCount(), "10 and 11, not 42");
        assertEquals(expectedAfterRecovery(), SessionDeliveries.of(recovered.session(), nanos.get()), "not m99");
    }

    @Test
    void withoutAStoreTheImportedSessionIsHeldWholeInTheHeap() {
        var sending = persistence(first);
        var portable = SessionExport.export(heldSession(sending), sending.journal(), nanos.get());
        var session = SessionImport.rebuild(portable, SessionJournal.NONE, MemoryBudget.NONE, nanos.get()).session();
        assertEquals(12, session.queuedInHeap());
        assertEquals(expectedDeliveries(), SessionDeliveries.of(session, nanos.get()));
    }

    @Test
    void theShardThatHandsTheSessionOverReadsAndEndsItThroughItsOwnJournal() {
        var holding = persistence(first);  // the shard of this node the session came from, on a thread of its own
        var migrated = heldSession(holding, new OtherShardsJournal(holding.journal()));
        holding.flushNow();  // written before its Handover leaves that shard (PeerHolds)
        var handing = persistence(first);  // the shard it came to, which hands it to another node
        var portable = SessionExport.export(migrated, handing.journal(), nanos.get());
        assertEquals(12, portable.queued().size());
        handing.flushNow();
        assertEquals(0, entriesOf(first), "ended in the handing shard's batch");
    }

    @Test
    void whatWaitsInAFailingStoreAloneCannotBeReadAndIsCountedAsDropped() {
        var ended = new ArrayList<String>();
        var failing = new SessionJournal() {
            @Override public boolean isKept() { return true; }
            @Override public int queuedInMemory() { return WINDOW; }
            @Override public boolean readable() { return false; }
            @Override public void ended(String clientId) { ended.add(clientId); }
        };
        var session = new Session(CLIENT, 1000, 0, false, MemoryBudget.NONE);
        session.journalTo(failing);
        for (int n = 1; n <= 10; n++) session.enqueue(message(n, QoS.AT_LEAST_ONCE), true);
        var moving = new MigratedSession(session, Map.of(), Session.NEVER_EXPIRES, Long.MAX_VALUE, Optional.empty(), false);
        var portable = SessionExport.export(moving, failing, nanos.get());
        assertEquals(List.of("m1", "m2", "m3", "m4"), portable.queued().stream().map(m -> m.payload().asUtf8()).toList());
        assertEquals(6, portable.droppedMessages());
        assertEquals(Optional.empty(), portable.expiresIn(), "it never expires");
        assertEquals(List.of(CLIENT), ended, "it ends in the store all the same: the other node keeps it");
    }

    /** The journal of another shard of the node: this shard's thread may not read through it. */
    private record OtherShardsJournal(SessionJournal journal) implements SessionJournal {
        @Override public boolean isKept() { return true; }
        @Override public int queuedInMemory() { return journal.queuedInMemory(); }
        @Override public List<Stored> readQueued(String clientId, long fromSeq, int count, LongPredicate inMemory) {
            throw new AssertionError("read through another shard's journal");
        }
        @Override public void message(String clientId, long seq, Message message) { journal.message(clientId, seq, message); }
        @Override public void inFlight(String clientId, long seq, int packetId, boolean released) {
            journal.inFlight(clientId, seq, packetId, released);
        }
        @Override public void awaitingPubRel(String clientId, int packetId, boolean awaiting) {
            journal.awaitingPubRel(clientId, packetId, awaiting);
        }
        @Override public void session(String clientId, long expiry, Map<String, SubscriptionEntry> subscriptions, long offlineSince) {
            journal.session(clientId, expiry, subscriptions, offlineSince);
        }
        @Override public void will(String clientId, PendingWill will) { journal.will(clientId, will); }
    }
}
