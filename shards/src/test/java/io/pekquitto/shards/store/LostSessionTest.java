package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionEffect.Attach;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A shard restarted after a failure forgets the sessions it held, but the store keeps them: a client
 * that comes back with Clean Start 0 gets its session from the store, queue and subscriptions included.
 */
class LostSessionTest {
    private static final long SECOND = 1_000_000_000L;
    private final MemoryStore store = new MemoryStore();
    private final AtomicLong nanos = new AtomicLong(100 * SECOND);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);

    /** A shard's session rules and its journal, on the one store: a new one is a restarted shard. */
    private record ShardState(ShardPersistence persistence, Sessions<String> sessions) {}

    private ShardState shard() {
        var persistence = new ShardPersistence(Optional.of(store), nanos::get, wall::get, () -> {});
        return new ShardState(persistence, new Sessions<>(id -> new Session(id, 100, false), persistence.journal()));
    }

    private List<SessionEffect<String>> perform(Sessions<String> sessions, List<SessionEffect<String>> effects) {
        var visible = new ArrayList<SessionEffect<String>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer) {
                visible.addAll(perform(sessions, sessions.receive(transfer.message(), nanos.get())));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }

    private Attach<String> connect(Sessions<String> sessions, String connection, boolean cleanStart) {
        return perform(sessions, sessions.connect("client", connection, cleanStart, 3600)).stream()
                .filter(Attach.class::isInstance).map(effect -> (Attach<String>) effect).findFirst().orElseThrow();
    }

    private static Message message(String payload) {
        return Message.received("jobs/1", Binary.utf8(payload), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0);
    }

    /** A persistent session with a subscription and three messages queued while offline, written. */
    private void sessionHeldByAShardThatFails(Optional<PendingWill> will) {
        var failing = shard();
        var attach = connect(failing.sessions(), "c1", false);
        failing.sessions().subscriptionsOf("client").put("jobs/+", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        failing.sessions().subscriptionsChanged("client");
        perform(failing.sessions(), failing.sessions().release("c1", "client", attach.session(), 3600, will, nanos.get()));
        for (var payload : List.of("one", "two", "three")) failing.sessions().deliver("client", message(payload));
        failing.persistence().flushNow();
    }

    @Test
    void aClientComingBackToARestartedShardResumesTheStoredSession() {
        sessionHeldByAShardThatFails(Optional.empty());
        var restarted = shard();
        restarted.sessions().restarted();
        var attach = connect(restarted.sessions(), "c2", false);
        assertTrue(attach.sessionPresent(), "session present: it came back from the store");
        assertEquals(3, attach.session().queuedCount());
        assertEquals(1, restarted.sessions().subscriptionsOf("client").size());
    }

    @Test
    void aShardThatLostNothingDoesNotLookInTheStore() {
        sessionHeldByAShardThatFails(Optional.empty());
        var other = shard();  // at start every stored session is recovered by its home: none is lost
        assertFalse(connect(other.sessions(), "c2", false).sessionPresent());
    }

    @Test
    void aStoredSessionThatExpiredMeanwhileEndsAndItsWillGoes() {
        var will = PendingWill.delayed(message("gone"), 7200, nanos.get());
        sessionHeldByAShardThatFails(Optional.of(will));
        wall.addAndGet(3601_000);  // past the session's expiry of 3600 s
        nanos.addAndGet(3601 * SECOND);
        var restarted = shard();
        restarted.sessions().restarted();
        var effects = perform(restarted.sessions(), restarted.sessions().connect("client", "c2", false, 3600));
        var attach = effects.stream().filter(Attach.class::isInstance).map(Attach.class::cast).findFirst().orElseThrow();
        assertFalse(attach.sessionPresent());
        assertTrue(effects.stream().anyMatch(SessionEffect.PublishWill.class::isInstance), "its will is published now");
    }
}
