package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.SessionEffect.Attach;
import io.pekquitto.shards.session.SessionEffect.PublishWill;
import io.pekquitto.shards.session.SessionEffect.RedeliverShared;
import io.pekquitto.shards.session.SessionEffect.StartExpiryTimer;
import io.pekquitto.shards.session.SessionEffect.StartWillTimer;
import io.pekquitto.shards.session.SessionEffect.TakeOver;
import io.pekquitto.shards.session.SessionEffect.Unsubscribe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The session rules of one shard, driven as the shard drives them: each call's effects performed in
 * order, and the transfers a shard sends itself handled in the same turn. No actor, no socket, no clock
 * but the {@code now} passed in.
 */
class SessionsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 5_000 * SECOND;

    private final Sessions<String> sessions = new Sessions<>(id -> new Session(id, 100, false));
    /** Every effect performed, in order, self transfers resolved. */
    private final List<SessionEffect<String>> performed = new ArrayList<>();

    private List<SessionEffect<String>> perform(List<SessionEffect<String>> effects, long now) {
        var visible = resolve(effects, now);
        performed.addAll(visible);
        return visible;
    }

    private List<SessionEffect<String>> resolve(List<SessionEffect<String>> effects, long now) {
        var visible = new ArrayList<SessionEffect<String>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer) {
                assertEquals(0, transfer.shard(), "one shard sends only to itself");
                visible.addAll(resolve(sessions.receive(transfer.message(), now), now));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }

    private List<SessionEffect<String>> connect(String connection, boolean cleanStart, long expiry) {
        return perform(sessions.connect("client", connection, cleanStart, expiry), T0);
    }

    private Session attached(List<SessionEffect<String>> effects, String connection, boolean sessionPresent) {
        Attach<?> attach = only(effects, Attach.class);
        assertEquals(connection, attach.connection());
        assertEquals(sessionPresent, attach.sessionPresent(), "Session Present");
        return attach.session();
    }

    private List<SessionEffect<String>> release(String connection, Session session, long expiry, Optional<PendingWill> will,
                                                long now) {
        return perform(sessions.release(connection, "client", session, expiry, will, now), now);
    }

    private static <E> E only(List<SessionEffect<String>> effects, Class<E> type) {
        var matching = effects.stream().filter(type::isInstance).toList();
        assertEquals(1, matching.size(), () -> "one " + type.getSimpleName() + " in " + effects);
        return type.cast(matching.get(0));
    }

    private static Message will() {
        return Message.received("will/client", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false, Properties.NONE, T0);
    }

    @Test
    void aNewClientGetsANewSessionWithoutSessionPresent() {  // [MQTT-3.2.2-3]
        var session = attached(connect("c1", false, 60), "c1", false);
        assertEquals("client", session.clientId());
        assertTrue(sessions.holds("client"));
    }

    @Test
    void aReconnectTakesOverAndResumesTheSameSession() {  // [MQTT-3.1.4-3], [MQTT-3.2.2-3]
        var first = attached(connect("c1", false, 60), "c1", false);
        var effects = connect("c2", false, 60);
        assertEquals(List.of(new TakeOver<>("c1")), effects, "the old connection closes; c2 waits for the session");
        var resumed = attached(release("c1", first, 60, Optional.empty(), T0), "c2", true);
        assertSame(first, resumed, "the state of the session moves to the new connection, nothing is lost");
    }

    @Test
    void cleanStartDiscardsTheSessionOfTheConnectionItTakesOver() {  // [MQTT-3.1.2-4]
        var first = attached(connect("c1", false, 60), "c1", false);
        sessions.subscriptionsOf("client").put("a/b", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        connect("c2", true, 60);
        var effects = release("c1", first, 60, Optional.empty(), T0);
        assertNotSame(first, attached(effects, "c2", false));
        assertTrue(effects.contains(new Unsubscribe<>("client", "a/b")), "the old subscriptions leave the index");
        assertTrue(sessions.subscriptionsOf("client").isEmpty());
    }

    @Test
    void aSessionWithExpiryZeroEndsWithItsConnection() {  // 3.1.2.11.2: expiry 0 or absent
        var session = attached(connect("c1", false, 0), "c1", false);
        release("c1", session, 0, Optional.empty(), T0);
        assertFalse(sessions.holds("client"));
        assertFalse(attached(connect("c2", false, 0), "c2", false) == session);
    }

    @Test
    void anOfflineSessionQueuesAndExpiresAfterItsInterval() {  // [MQTT-3.1.2-23]
        var session = attached(connect("c1", false, 10), "c1", false);
        var timer = (StartExpiryTimer<String>) only(release("c1", session, 10, Optional.empty(), T0), StartExpiryTimer.class);
        assertEquals(Duration.ofSeconds(10), timer.delay());
        assertNull(sessions.deliver("client", will()), "offline: queued, not sent");
        assertEquals(1, session.queuedCount());

        perform(sessions.expiryCheck("client", timer.generation(), T0 + 9 * SECOND), T0 + 9 * SECOND);
        assertTrue(sessions.holds("client"), "early check: not yet");
        perform(sessions.expiryCheck("client", timer.generation(), T0 + 10 * SECOND), T0 + 10 * SECOND);
        assertFalse(sessions.holds("client"), "expired after 10 s");
    }

    @Test
    void anEarlyExpiryCheckStartsAnotherTimerForWhatIsLeft() {
        var session = attached(connect("c1", false, 10), "c1", false);
        var timer = (StartExpiryTimer<String>) only(release("c1", session, 10, Optional.empty(), T0), StartExpiryTimer.class);
        var again = perform(sessions.expiryCheck("client", timer.generation(), T0 + 4 * SECOND), T0 + 4 * SECOND);
        assertEquals(Duration.ofSeconds(6), ((StartExpiryTimer<String>) only(again, StartExpiryTimer.class)).delay());
    }

    @Test
    void anExpiryTimerOfAnEarlierDetachIsStale() {
        var session = attached(connect("c1", false, 10), "c1", false);
        var timer = (StartExpiryTimer<String>) only(release("c1", session, 10, Optional.empty(), T0), StartExpiryTimer.class);
        var resumed = attached(connect("c2", false, 10), "c2", true);
        assertSame(session, resumed);
        perform(sessions.expiryCheck("client", timer.generation(), T0 + 60 * SECOND), T0 + 60 * SECOND);
        assertTrue(sessions.holds("client"), "an attached session never expires; the old timer is stale");
    }

    @Test
    void aSessionThatNeverExpiresStartsNoTimer() {  // 3.1.2.11.2: 0xFFFFFFFF
        var session = attached(connect("c1", false, Session.NEVER_EXPIRES), "c1", false);
        var effects = release("c1", session, Session.NEVER_EXPIRES, Optional.empty(), T0);
        assertTrue(effects.stream().noneMatch(StartExpiryTimer.class::isInstance), effects::toString);
        assertTrue(sessions.holds("client"));
    }

    @Test
    void longExpiriesAreCheckedInCappedSteps() {
        var session = attached(connect("c1", false, 365L * 24 * 3600), "c1", false);
        var timer = (StartExpiryTimer<String>) only(release("c1", session, 365L * 24 * 3600, Optional.empty(), T0),
                StartExpiryTimer.class);
        assertEquals(SessionTable.LONGEST_TIMER, timer.delay());
    }

    @Test
    void aDelayedWillIsPublishedWhenItsDelayHasPassed() {  // [MQTT-3.1.3-9] 3.1.3.2.2
        var session = attached(connect("c1", false, 60), "c1", false);
        var effects = release("c1", session, 60, Optional.of(PendingWill.delayed(will(), 5, T0)), T0);
        var timer = (StartWillTimer<String>) only(effects, StartWillTimer.class);
        assertEquals(Duration.ofSeconds(5), timer.delay());
        assertTrue(effects.stream().noneMatch(PublishWill.class::isInstance), "not before its delay");

        var fired = perform(sessions.willDelayExpired("client", timer.generation(), T0 + 5 * SECOND), T0 + 5 * SECOND);
        assertEquals("will/client", ((PublishWill<String>) only(fired, PublishWill.class)).will().topic());
        assertTrue(perform(sessions.willDelayExpired("client", timer.generation(), T0 + 6 * SECOND), T0).isEmpty(),
                "published once");
    }

    @Test
    void resumingTheSessionBeforeTheWillDelayCancelsTheWill() {  // [MQTT-3.1.3-9]
        var session = attached(connect("c1", false, 60), "c1", false);
        var timer = (StartWillTimer<String>) only(release("c1", session, 60, Optional.of(PendingWill.delayed(will(), 5, T0)), T0),
                StartWillTimer.class);
        attached(connect("c2", false, 60), "c2", true);
        var later = perform(sessions.willDelayExpired("client", timer.generation(), T0 + 5 * SECOND), T0 + 5 * SECOND);
        assertTrue(later.isEmpty(), "no will: the client came back in time");
        assertTrue(performed.stream().noneMatch(PublishWill.class::isInstance));
    }

    @Test
    void aSessionEndingBeforeTheWillDelayPublishesTheWillThen() {  // 3.1.3.2.2: whichever happens first
        var session = attached(connect("c1", false, 2), "c1", false);
        var effects = release("c1", session, 2, Optional.of(PendingWill.delayed(will(), 30, T0)), T0);
        var expiry = (StartExpiryTimer<String>) only(effects, StartExpiryTimer.class);
        var ended = perform(sessions.expiryCheck("client", expiry.generation(), T0 + 2 * SECOND), T0 + 2 * SECOND);
        only(ended, PublishWill.class);
    }

    @Test
    void aWillPublishedBeforeItsDelayIsOverStartsItsExpiryThen() {  // 3.1.3.2.4: the lifetime runs from publication
        var session = attached(connect("c1", false, 2), "c1", false);
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        long delay = 30;
        // As LastWill makes it: received when the connection ended.
        var will = Message.received("will/client", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false, properties, T0);
        var effects = release("c1", session, 2, Optional.of(PendingWill.delayed(will, delay, T0)), T0);
        var expiry = only(effects, StartExpiryTimer.class);
        var ended = perform(sessions.expiryCheck("client", expiry.generation(), T0 + 2 * SECOND), T0 + 2 * SECOND);
        var published = only(ended, PublishWill.class).will();
        assertFalse(published.isExpired(T0 + 11 * SECOND), "published at 2 s, alive for 10 s");
        assertTrue(published.isExpired(T0 + 12 * SECOND), "not 30 s later than asked");
    }

    @Test
    void aWillWithExpiryZeroSessionIsPublishedAtOnce() {
        var session = attached(connect("c1", false, 0), "c1", false);
        var effects = release("c1", session, 0, Optional.of(PendingWill.delayed(will(), 30, T0)), T0);
        only(effects, PublishWill.class);
    }

    @Test
    void aCleanStartOverAnOfflineSessionPublishesItsPendingWill() {  // the old session ends: its will goes
        var session = attached(connect("c1", false, 60), "c1", false);
        release("c1", session, 60, Optional.of(PendingWill.delayed(will(), 30, T0)), T0);
        var effects = connect("c2", true, 60);
        only(effects, PublishWill.class);
        attached(effects, "c2", false);
    }

    @Test
    void sharedMessagesOfAnEndingSessionGoToOtherMembers() {  // 4.8.2
        var session = attached(connect("c1", false, 60), "c1", false);
        release("c1", session, 60, Optional.empty(), T0);
        var shared = will().viaShared("$share/g/will/#");
        assertNull(sessions.deliver("client", shared));
        var effects = connect("c2", true, 60);
        assertEquals(shared, ((RedeliverShared<String>) only(effects, RedeliverShared.class)).message());
    }

    @Test
    void anAttachedSessionIsDeliveredToItsConnection() {
        attached(connect("c1", false, 60), "c1", false);
        assertEquals("c1", sessions.deliver("client", will()));
        assertNull(sessions.deliver("other", will()), "no session of that client here");
    }

    @Test
    void aFailedConnectionLeavesAnEmptyOfflineSession() {
        var session = attached(connect("c1", false, 60), "c1", false);
        sessions.subscriptionsOf("client").put("a/b", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_MOST_ONCE), 0));
        perform(sessions.connectionStopped("c1", T0), T0);
        assertTrue(sessions.holds("client"), "the session outlives the failed connection");
        var resumed = attached(connect("c2", false, 60), "c2", true);
        assertNotSame(session, resumed, "the failed connection held its delivery state");
        assertTrue(sessions.subscriptionsOf("client").containsKey("a/b"), "the subscriptions are kept");
    }

    @Test
    void aStormOfTakeoversLeavesOnlyTheLastConnection() {  // [MQTT-3.1.4-3]
        var first = attached(connect("c0", false, 60), "c0", false);
        for (int i = 1; i <= 50; i++) {
            assertEquals(List.of(new TakeOver<>("c" + (i - 1))), connect("c" + i, false, 60).stream()
                    .filter(TakeOver.class::isInstance).toList());
        }
        var effects = release("c0", first, 60, Optional.empty(), T0);
        assertSame(first, attached(effects, "c50", true), "the session skips the claims taken over meanwhile");
        var attaches = performed.stream().filter(Attach.class::isInstance).count();
        assertEquals(2, attaches, "c0 and c50 only");
    }
}
