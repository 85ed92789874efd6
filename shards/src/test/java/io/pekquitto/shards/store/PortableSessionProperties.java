package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionExport;
import io.pekquitto.shards.session.SessionImport;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Any persistent session, exported from one store and imported into another, is the session it was: it
 * delivers what the same session kept where it was made delivers, and so does it after a recovery from
 * the second store alone; exported again it has the same portable form; the first store keeps nothing.
 */
class PortableSessionProperties {
    private static final long NOW = 100_000_000_000L;
    private static final long WALL = 1_800_000_000_000L;

    /** A session to build: its messages in flight (a QoS 2 one perhaps released), its queue, how much of it is written. */
    record Script(int window, List<Boolean> inFlight, List<QoS> queued, int written, Set<Integer> awaitingPubRel,
                  int subscriptions, long expiryInterval, boolean will) {}

    @Provide
    Arbitrary<Script> scripts() {
        var flight = Arbitraries.of(Boolean.TRUE, Boolean.FALSE, null);  // QoS 2 released, QoS 2 sent, QoS 1
        var queue = Arbitraries.of(QoS.AT_LEAST_ONCE, QoS.EXACTLY_ONCE).list().ofMaxSize(25);
        var expiry = Arbitraries.oneOf(Arbitraries.just(Session.NEVER_EXPIRES), Arbitraries.longs().between(1, 100_000));
        return Combinators.combine(Arbitraries.integers().between(1, 6), flight.list().ofMaxSize(5), queue,
                Arbitraries.integers().between(0, 25), Arbitraries.integers().between(1, 65_535).set().ofMaxSize(4),
                Arbitraries.integers().between(0, 2), expiry, Arbitraries.of(true, false)).as(Script::new);
    }

    private static ShardPersistence persistence(Store store, int window) {
        return new ShardPersistence(Optional.of(store), StoreHealth.none(), () -> NOW, () -> WALL, () -> {}, window, false,
                "unused", written -> {}, failure -> {});
    }

    private static Message message(int n, QoS qos) {
        return Message.received("t/" + n, Binary.utf8("m" + n), qos, false, Properties.NONE, NOW);
    }

    /** The session of {@code script}, offline on the shard of {@code persistence}. */
    private static MigratedSession build(Script script, ShardPersistence persistence) {
        var journal = persistence.journal();
        var session = new Session("c", 1000, 0, false, MemoryBudget.NONE);
        session.journalTo(journal);
        var subscriptions = new HashMap<String, SubscriptionEntry>();
        for (int i = 0; i < script.subscriptions(); i++) {
            subscriptions.put("f/" + i, new SubscriptionEntry(SubscriptionOptions.of(QoS.of(i + 1)), i));
        }
        journal.session("c", script.expiryInterval(), subscriptions, NOW);
        int n = 0;
        for (var released : script.inFlight()) {
            int packetId = session.startFlight(message(++n, released == null ? QoS.AT_LEAST_ONCE : QoS.EXACTLY_ONCE), NOW).packetId();
            if (Boolean.TRUE.equals(released)) session.received(packetId);
        }
        for (int packetId : script.awaitingPubRel()) {
            session.firstReceipt(packetId);
            journal.awaitingPubRel("c", packetId, true);
        }
        for (int i = 0; i < script.queued().size(); i++) {
            if (i == script.written()) persistence.flush();
            session.enqueue(message(++n, script.queued().get(i)), true);
        }
        var will = script.will() ? Optional.of(PendingWill.delayed(message(0, QoS.AT_MOST_ONCE), 10, NOW)) : Optional.<PendingWill>empty();
        will.ifPresent(pending -> journal.will("c", pending));
        long expiresAt = script.expiryInterval() == Session.NEVER_EXPIRES ? Long.MAX_VALUE : NOW + script.expiryInterval() * 1_000_000_000L;
        return new MigratedSession(session, subscriptions, script.expiryInterval(), expiresAt, will, false);
    }

    private static List<String> deliveriesAfterRecovery(MemoryStore store, int window) {
        var recovered = persistence(store, window).recoverSessions(0, 1, id -> new Session(id, 1000, false));
        assertEquals(1, recovered.size());
        return SessionDeliveries.of(recovered.get(0).session(), NOW);
    }

    @Property(tries = 300)
    void aSessionMovedToAnotherStoreIsTheSessionItWas(@ForAll("scripts") Script script) {
        var where = new MemoryStore();  // the same session, kept where it was made
        var reference = persistence(where, script.window());
        var kept = build(script, reference).session();
        reference.flushNow();

        var first = new MemoryStore();
        var sending = persistence(first, script.window());
        var portable = SessionExport.export(build(script, sending), sending.journal(), NOW);
        sending.flushNow();
        assertEquals(0, PortableSessionTest.entriesOf(first), "the first store keeps nothing");

        var second = new MemoryStore();
        var receiving = persistence(second, script.window());
        var arrived = SessionImport.rebuild(portable, receiving.journal(), MemoryBudget.NONE, NOW);
        receiving.flushNow();
        assertEquals(deliveriesAfterRecovery(where, script.window()), deliveriesAfterRecovery(second, script.window()),
                "after a recovery from the second store alone");
        var again = new MemoryStore();
        var onwards = persistence(again, script.window());
        var exportedAgain = SessionExport.export(SessionImport.rebuild(portable, onwards.journal(), MemoryBudget.NONE, NOW),
                onwards.journal(), NOW);
        assertEquals(portable, exportedAgain, "exported again, the same portable form");
        assertEquals(SessionDeliveries.of(kept, NOW), SessionDeliveries.of(arrived.session(), NOW));
    }
}
