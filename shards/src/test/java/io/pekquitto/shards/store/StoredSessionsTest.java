package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Persistent sessions journaled by one shard and read back by a restarted broker: subscriptions,
 * queued messages in order, QoS 2 exchanges both ways with their packet identifiers, wills, and what
 * expired while the broker was down.
 */
class StoredSessionsTest {
    private static final long SECOND = 1_000_000_000L;
    private final MemoryStore store = new MemoryStore();
    private final AtomicLong nanos = new AtomicLong(7 * SECOND);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    private final ShardPersistence persistence = new ShardPersistence(Optional.of(store), nanos::get, wall::get, () -> {});
    private final SessionJournal journal = persistence.journal();

    @AfterEach
    void stopWriter() {
        persistence.close();
    }

    private Message message(String payload, QoS qos) {
        return Message.received("t/" + payload, Binary.utf8(payload), qos, false, Properties.NONE, nanos.get());
    }

    private Session session(String clientId) {
        var session = new Session(clientId, 100, false);
        session.journalTo(journal);
        journal.session(clientId, 3600, Map.of(), SessionJournal.CONNECTED);
        return session;
    }

    /** What a broker started again with {@code shards} shards recovers on shard {@code shard}, its clock anew. */
    private List<RecoveredSession> recover(int shard, int shards) {
        var restarted = new ShardPersistence(Optional.of(store), () -> 3 * SECOND, wall::get, () -> {});
        var recovered = restarted.recoverSessions(shard, shards, id -> new Session(id, 100, false));
        restarted.close();
        return recovered;
    }

    private static List<Packet> resent(Session session) {
        var packets = new ArrayList<Packet>();
        session.resend(3 * SECOND, packets::add);
        session.drain(100, 3 * SECOND, packets::add);
        return packets;
    }

    private static String payload(Packet packet) {
        return ((Publish) packet).payload().asUtf8();
    }

    @Test
    void subscriptionsAndExpiryComeBack() {
        var subscriptions = Map.of(
                "a/+", new SubscriptionEntry(new SubscriptionOptions(QoS.EXACTLY_ONCE, true, true, 2), 7),
                "$share/g/jobs/#", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        journal.session("c", 3600, subscriptions, nanos.get() - 10 * SECOND);
        persistence.flushNow();
        wall.addAndGet(20_000);  // down for 20 s
        var recovered = recover(0, 1).get(0);
        assertEquals("c", recovered.clientId());
        assertEquals(subscriptions, recovered.subscriptions());
        assertEquals(3600, recovered.expiryInterval());
        assertEquals(3 * SECOND - 30 * SECOND, recovered.offlineSince(), "offline 10 s before and 20 s while down");
    }

    @Test
    void aSessionConnectedAtTheCrashIsOfflineFromTheRestart() {
        session("c");
        persistence.flushNow();
        assertEquals(3 * SECOND, recover(0, 1).get(0).offlineSince());
    }

    @Test
    void unacknowledgedMessagesComeBackInOrderWithTheirQos2PacketIdentifiers() {
        var session = session("c");
        for (var name : List.of("acked", "released", "sent2", "sent1", "queued1", "queued2")) {
            session.enqueue(message(name, name.endsWith("1") || name.equals("acked") ? QoS.AT_LEAST_ONCE : QoS.EXACTLY_ONCE), false);
        }
        var sent = new ArrayList<Packet>();
        session.drain(4, nanos.get(), sent::add);
        var ids = sent.stream().map(packet -> ((Publish) packet).packetId()).toList();
        assertTrue(session.acknowledge(ids.get(0)));
        assertTrue(session.received(ids.get(1)));
        for (int incoming : new int[] {300, 301}) {
            assertTrue(session.firstReceipt(incoming));
            journal.awaitingPubRel("c", incoming, true);  // the shard's turn, with the message it routes
        }
        assertTrue(session.release(301));
        persistence.flushNow();

        var restored = recover(0, 1).get(0).session();
        var packets = resent(restored);
        assertEquals(new PubRel(ids.get(1)), packets.get(0), "PUBREC came: PUBREL again, same identifier");
        var sent2 = (Publish) packets.get(1);
        assertEquals("sent2", sent2.payload().asUtf8());
        assertEquals(ids.get(2), sent2.packetId(), "QoS 2 resent under its identifier, DUP set");
        assertTrue(sent2.dup());
        assertEquals(List.of("sent1", "queued1", "queued2"), packets.subList(2, 5).stream().map(StoredSessionsTest::payload).toList(),
                "QoS 1 and the queue: sent again in order (QoS 1 may come twice)");
        assertFalse(restored.firstReceipt(300), "incoming 300 still awaits PUBREL: a resend is not delivered twice");
        assertTrue(restored.firstReceipt(301), "301 was released");
    }

    @Test
    void whatIsAcknowledgedOrCompletedLeavesTheStore() {
        var session = session("c");
        session.enqueue(message("one", QoS.AT_LEAST_ONCE), false);
        session.enqueue(message("two", QoS.EXACTLY_ONCE), false);
        var sent = new ArrayList<Packet>();
        session.drain(10, nanos.get(), sent::add);
        session.acknowledge(((Publish) sent.get(0)).packetId());
        int two = ((Publish) sent.get(1)).packetId();
        session.received(two);
        session.complete(two);
        persistence.flushNow();
        assertEquals(List.of(), resent(recover(0, 1).get(0).session()));
        assertEquals(0, count(Keyspace.QUEUED) + count(Keyspace.IN_FLIGHT));
    }

    @Test
    void aDeliveryRoutedToTheConnectionIsKeptUnderOneSequenceNumber() {
        var session = session("c");
        var routed = message("routed", QoS.AT_LEAST_ONCE);
        session.routed(routed);  // the shard's turn: written before the publisher's PUBACK
        session.routed(routed);  // bounced back by a connection that let the session go, and routed again
        persistence.flushNow();
        assertEquals(1, count(Keyspace.QUEUED));
        session.startFlight(routed, nanos.get());  // the connection's window takes the same delivery
        persistence.flushNow();
        assertEquals(1, count(Keyspace.QUEUED), "not journaled twice");
        assertEquals(List.of("routed"), resent(recover(0, 1).get(0).session()).stream().map(StoredSessionsTest::payload).toList());
    }

    @Test
    void aMessageDroppedAtTheQueueLimitIsNeverWritten() {
        var session = session("c");  // max-queued-messages 100
        for (int i = 0; i <= 100; i++) session.enqueue(message("m" + i, QoS.AT_LEAST_ONCE), true);
        persistence.flushNow();
        assertEquals(1, session.droppedMessages());
        assertEquals(100, count(Keyspace.QUEUED));
    }

    @Test
    void anEndedSessionLeavesNothing() {
        var session = session("c");
        session("cc");  // a client id that begins with "c" keeps its entries
        session.enqueue(message("one", QoS.AT_LEAST_ONCE), false);
        session.firstReceipt(9);
        journal.will("c", PendingWill.delayed(message("will", QoS.AT_MOST_ONCE), 30, nanos.get()));
        journal.ended("c");
        persistence.flushNow();
        assertEquals(List.of("cc"), recover(0, 1).stream().map(RecoveredSession::clientId).toList());
        assertEquals(0, count(Keyspace.QUEUED) + count(Keyspace.IN_FLIGHT) + count(Keyspace.WILLS));
    }

    @Test
    void eachSessionIsRecoveredByExactlyOneShardWhateverTheShardCount() {
        var ids = new HashSet<String>();
        for (int i = 0; i < 50; i++) {
            ids.add("client-" + i);
            session("client-" + i);
        }
        persistence.flushNow();
        for (int shards = 1; shards <= 3; shards++) {
            var recovered = new ArrayList<String>();
            for (int shard = 0; shard < shards; shard++) recover(shard, shards).forEach(r -> recovered.add(r.clientId()));
            assertEquals(50, recovered.size(), shards + " shards");
            assertEquals(ids, new HashSet<>(recovered));
        }
    }

    @Test
    void aMessageThatExpiredWhileTheBrokerWasDownIsNotSentAndIsDeleted() {
        var session = session("c");
        var shortLived = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 30L).build();
        session.enqueue(Message.received("t", Binary.utf8("short"), QoS.AT_LEAST_ONCE, false, shortLived, nanos.get()), false);
        session.enqueue(message("long", QoS.AT_LEAST_ONCE), false);
        persistence.flushNow();
        wall.addAndGet(31_000);
        assertEquals(List.of("long"), resent(recover(0, 1).get(0).session()).stream().map(StoredSessionsTest::payload).toList());
        assertEquals(1, count(Keyspace.QUEUED), "[MQTT-3.3.2-5] the expired one is gone from the store too");
    }

    @Test
    void aWillWaitingOutItsDelayComesBackWithWhatIsLeftOfIt() {
        session("c");
        var expiring = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L).build();
        var will = Message.received("wills/c", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, true, expiring, nanos.get());
        journal.will("c", PendingWill.delayed(will, 100, nanos.get()));
        persistence.flushNow();
        wall.addAndGet(40_000);  // down for 40 s
        var pending = recover(0, 1).get(0).will().orElseThrow();
        assertEquals(3 * SECOND + 60 * SECOND, pending.publishAt(), "100 s delay, 40 s of it spent while down");
        var published = pending.messageAt(pending.publishAt()).toPublish(1, false, pending.publishAt());
        assertEquals(Optional.of(60L), published.properties().messageExpiryInterval(), "its expiry starts when it is published");
        assertEquals("gone", published.payload().asUtf8());
        assertTrue(published.retain());
    }

    private int count(Keyspace keyspace) {
        int[] count = {0};
        store.forEach(keyspace, (key, value) -> count[0]++);
        return count[0];
    }

    @Test
    void aMessageRelayedToASharedMemberIsDeliveredToItsSessionAfterACrash() {
        session("member");
        var relayed = message("relayed", QoS.AT_LEAST_ONCE).viaShared("$share/g/t/#");
        persistence.relay("member", relayed);
        assertEquals(null, persistence.relay("member", message("at-most-once", QoS.AT_MOST_ONCE)), "QoS 0 is not kept");
        persistence.flushNow();  // the sending shard wrote it; the broker stopped before the member's shard did

        var restored = recover(0, 1).get(0).session();
        var packets = resent(restored);
        assertEquals(List.of("relayed"), packets.stream().map(StoredSessionsTest::payload).toList());
        assertEquals(0, count(Keyspace.RELAYED), "taken on by the session at recovery, in the same batch");
        var again = recover(0, 1).get(0).session();
        assertEquals(List.of("relayed"), resent(again).stream().map(StoredSessionsTest::payload).toList(),
                "queued in its session now, once");
    }

    @Test
    void aRelayedMessageTakenOnByTheMembersShardIsNotDeliveredAgain() {
        session("member");
        var key = persistence.relay("member", message("relayed", QoS.EXACTLY_ONCE));
        persistence.flushNow();
        persistence.relayDone(key);  // the member's shard queued it, in the same batch
        persistence.flushNow();
        assertEquals(0, count(Keyspace.RELAYED));
        assertEquals(List.of(), resent(recover(0, 1).get(0).session()));
    }

    @Test
    void aRelayedMessageIsTakenOnByTheShardThatIsItsSessionsHome() {
        var clientIds = List.of("a", "b", "c", "d", "e", "f");
        for (var clientId : clientIds) {
            session(clientId);
            persistence.relay(clientId, message("for-" + clientId, QoS.AT_LEAST_ONCE));
        }
        persistence.flushNow();
        var delivered = new ArrayList<String>();
        for (int shard = 0; shard < 3; shard++) {
            for (var recovered : recover(shard, 3)) {
                resent(recovered.session()).forEach(packet -> delivered.add(payload(packet)));
            }
        }
        assertEquals(clientIds.stream().map(id -> "for-" + id).sorted().toList(), delivered.stream().sorted().toList());
    }
}
