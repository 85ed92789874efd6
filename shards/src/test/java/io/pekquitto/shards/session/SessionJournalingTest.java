package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.SessionEffect.Attach;
import io.pekquitto.shards.session.SessionEffect.PublishWill;
import io.pekquitto.shards.session.SessionEffect.StartExpiryTimer;
import io.pekquitto.shards.session.SessionEffect.StartWillTimer;
import io.pekquitto.shards.session.SessionEffect.Subscribe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the session rules write to the journal: a persistent session (expiry not 0) and its changes,
 * nothing of one that ends with its connection; and a session recovered from the store at start.
 */
class SessionJournalingTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 5_000 * SECOND;

    /** Every journal call, as text. */
    private final List<String> journaled = new ArrayList<>();
    private final SessionJournal journal = new SessionJournal() {
        @Override public boolean isKept() { return true; }
        @Override public void message(String clientId, long seq, Message message) { journaled.add("message " + seq); }
        @Override public void removed(String clientId, long seq, boolean inFlightToo) { journaled.add("removed " + seq); }
        @Override public void session(String clientId, long expiry, Map<String, SubscriptionEntry> subscriptions, long offlineSince) {
            journaled.add("session " + expiry + " " + subscriptions.keySet() + (offlineSince == CONNECTED ? " connected" : " offline"));
        }
        @Override public void will(String clientId, PendingWill will) { journaled.add(will == null ? "no will" : "will"); }
        @Override public void ended(String clientId) { journaled.add("ended"); }
    };
    private final Sessions<String> sessions = new Sessions<>(id -> new Session(id, 100, false), journal);

    /** The effects, transfers to this single shard resolved as the shard does. */
    private List<SessionEffect<String>> perform(List<SessionEffect<String>> effects) {
        var visible = new ArrayList<SessionEffect<String>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer) {
                visible.addAll(perform(sessions.receive(transfer.message(), T0)));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }

    private Session attach(String connection, boolean cleanStart, long expiry) {
        var attach = perform(sessions.connect("client", connection, cleanStart, expiry)).stream()
                .filter(Attach.class::isInstance).map(Attach.class::cast).findFirst().orElseThrow();
        return attach.session();
    }

    private static Message message(String payload) {
        return Message.received("t", Binary.utf8(payload), QoS.AT_LEAST_ONCE, false, Properties.NONE, T0);
    }

    @Test
    void aPersistentSessionIsWrittenAsItGoesOnlineAndOffline() {
        var session = attach("c1", true, 60);
        assertEquals(List.of("ended", "session 60 [] connected"), journaled, "a new session: whatever the store held goes");
        journaled.clear();
        sessions.subscriptionsOf("client").put("a/+", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        sessions.subscriptionsChanged("client");
        var will = PendingWill.delayed(message("gone"), 30, T0);
        perform(sessions.release("c1", "client", session, 60, Optional.of(will), T0));
        assertEquals(List.of("session 60 [a/+] connected", "will", "session 60 [a/+] offline"), journaled);
    }

    @Test
    void aSessionThatEndsWithItsConnectionIsNeverWritten() {
        var session = attach("c1", true, 0);
        session.enqueue(message("m"), false);
        perform(sessions.release("c1", "client", session, 0, Optional.empty(), T0));
        assertEquals(List.of(), journaled);
    }

    @Test
    void aPersistentSessionResumedWithExpiryZeroLeavesTheJournal() {
        var session = attach("c1", true, 60);
        perform(sessions.release("c1", "client", session, 60, Optional.empty(), T0));
        journaled.clear();
        var resumed = attach("c2", false, 0);
        assertEquals(List.of("ended"), journaled);
        resumed.enqueue(message("m"), false);
        assertEquals(List.of("ended"), journaled, "no longer journaled");
    }

    @Test
    void whatTheShardRoutesToAnAttachedPersistentSessionIsJournaledAtOnce() {
        var session = attach("c1", true, 60);
        journaled.clear();
        var routed = message("m");
        assertEquals("c1", sessions.deliver("client", routed));
        assertEquals(List.of("message 1"), journaled, "before the publisher's PUBACK, not when the connection sends it");
        session.startFlight(routed, T0);
        assertEquals(List.of("message 1"), journaled, "the window takes it under the same number");
    }

    @Test
    void anEndedSessionIsDeletedFromTheJournal() {
        var session = attach("c1", true, 10);
        perform(sessions.release("c1", "client", session, 10, Optional.empty(), T0));
        journaled.clear();
        perform(sessions.expiryCheck("client", 2, T0 + 11 * SECOND));
        assertEquals(List.of("ended"), journaled);
        assertFalse(sessions.holds("client"));
    }

    private RecoveredSession recovered(long expiry, long offlineSince, Optional<PendingWill> will) {
        var session = new Session("client", 100, false);
        session.journalTo(journal);
        session.restore(4, message("queued"), 0, false);
        var subscriptions = Map.of("a/+", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        return new RecoveredSession("client", session, subscriptions, expiry, offlineSince, will);
    }

    @Test
    void aRecoveredSessionIsIndexedAndGoesToTheClientThatResumesIt() {
        var effects = perform(sessions.recover(recovered(60, T0, Optional.empty())));
        assertTrue(effects.contains(new Subscribe<>("client", "a/+", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0))));
        var timers = perform(sessions.startRecoveredTimers(List.of("client"), T0));
        assertTrue(timers.stream().anyMatch(StartExpiryTimer.class::isInstance), timers.toString());
        var attach = perform(sessions.connect("client", "c1", false, 60)).stream().filter(Attach.class::isInstance)
                .map(Attach.class::cast).findFirst().orElseThrow();
        assertTrue(attach.sessionPresent(), "[MQTT-3.2.2-3] the recovered session is present");
        assertEquals(1, attach.session().queuedCount());
    }

    @Test
    void aRecoveredSessionThatExpiredWhileTheBrokerWasDownEndsAndItsWillGoes() {
        var will = PendingWill.delayed(message("gone"), 600, T0 - 100 * SECOND);
        perform(sessions.recover(recovered(60, T0 - 100 * SECOND, Optional.of(will))));
        journaled.clear();
        var effects = perform(sessions.startRecoveredTimers(List.of("client"), T0));
        assertTrue(effects.stream().anyMatch(PublishWill.class::isInstance), "3.1.3.2.2: the session ended before the delay");
        assertEquals(List.of("ended"), journaled);
        assertFalse(sessions.holds("client"));
    }

    @Test
    void aRecoveredWillWaitsOutWhatIsLeftOfItsDelay() {
        var will = PendingWill.delayed(message("gone"), 30, T0 - 10 * SECOND);
        perform(sessions.recover(recovered(3600, T0 - 10 * SECOND, Optional.of(will))));
        var effects = perform(sessions.startRecoveredTimers(List.of("client"), T0));
        var timer = effects.stream().filter(StartWillTimer.class::isInstance).map(StartWillTimer.class::cast).findFirst().orElseThrow();
        assertEquals(20, timer.delay().toSeconds());
    }
}
