package io.pekquitto.e2e.session;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBCOMP;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.PUBREL;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sessions across connections: Clean Session (3.1.1) / Clean Start and Session Expiry Interval (5.0),
 * Session Present, subscriptions kept and QoS 1 and 2 messages queued while offline (3.1.2.4, 3.1.2.11.2, 4.1).
 * Session expiry and message expiry are timers: ShardTimersTest checks them under a manual clock, so no
 * test here waits for them.
 */
class SessionIT {
    private static final int QUEUED = 5;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    /** A persistent session: 3.1.1 Clean Session 0; 5.0 Clean Start 0 with the given Session Expiry Interval. */
    private static PahoClient connectKeepingSession(int version, String clientId, long sessionExpirySeconds) throws Exception {
        if (version == V311) return broker.v3(clientId, options -> options.setCleanSession(false));
        return broker.v5(clientId, options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(sessionExpirySeconds);
        });
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("Clean Session / Clean Start 1 discards a stored session and gives Session Present 0 [MQTT-3.1.2-6] [MQTT-3.2.2-1] (3.1.1) [MQTT-3.1.2-4] [MQTT-3.2.2-2] (5.0)")
    void cleanStartDiscardsTheSession(int version) throws Exception {
        String clientId = Names.clientId("clean");
        String topic = Names.topic("clean");
        try (var first = connectKeepingSession(version, clientId, 60)) {
            assertFalse(first.sessionPresent(), "no session yet [MQTT-3.2.2-3]");
            first.subscribe(topic, 1);
            first.disconnect();
        }
        try (var clean = broker.paho(version, clientId)) {
            var publisher = broker.publishers().get(version);
            assertFalse(clean.sessionPresent(), "Session Present 0 after a clean start");
            publisher.publish(topic, "to the discarded subscription", 1, false);
            clean.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(20)
    @DisplayName("a persistent session keeps its subscriptions and receives, in order and once, the QoS 1 and 2 messages published while offline [MQTT-3.1.2-4] [MQTT-3.1.2-5] [MQTT-3.2.2-2] (3.1.1) [MQTT-3.1.2-5] [MQTT-3.1.2-23] [MQTT-3.2.2-3] (5.0)")
    void persistentSessionQueuesWhileOffline(int version) throws Exception {
        String clientId = Names.clientId("keeper");
        String root = Names.topic("offline");
        try (var first = connectKeepingSession(version, clientId, 60)) {
            assertEquals(1, first.subscribe(root + "/q1", 1));
            assertEquals(2, first.subscribe(root + "/q2", 2));
            first.disconnect();
        }
        var publisher = broker.publishers().get(version);
        for (int i = 0; i < QUEUED; i++) {
            publisher.publish(root + "/q1", "one-" + i, 1, false);
            publisher.publish(root + "/q2", "two-" + i, 2, false);
        }
        try (var resumed = connectKeepingSession(version, clientId, 60)) {
            assertTrue(resumed.sessionPresent(), "Session Present 1 for a stored session");
            var received = resumed.inbox().next(2 * QUEUED, Duration.ofSeconds(10));
            // Order is promised per topic and QoS [MQTT-4.6.0-6 (3.1.1)] [MQTT-4.6.0-5 (5.0)].
            assertEquals(expected("one-"), texts(received, root + "/q1"));
            assertEquals(expected("two-"), texts(received, root + "/q2"));
            assertTrue(received.stream().filter(m -> m.topic().endsWith("/q1")).allMatch(m -> m.qos() == 1));
            assertTrue(received.stream().filter(m -> m.topic().endsWith("/q2")).allMatch(m -> m.qos() == 2));
            resumed.inbox().expectNothing();   // exactly once

            // The subscriptions are part of the session: no SUBSCRIBE since the reconnect.
            publisher.publish(root + "/q1", "live", 1, false);
            assertEquals("live", resumed.inbox().next().text());
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: Session Expiry Interval 0 ends the session with the connection: Session Present 0 and nothing queued (3.1.2.11.2) [MQTT-3.1.2-23] [MQTT-3.2.2-3]")
    void sessionExpiryZeroEndsTheSessionAtDisconnect() throws Exception {
        String clientId = Names.clientId("expiry0");
        String topic = Names.topic("expiry0");
        try (var first = connectKeepingSession(V5, clientId, 0)) {
            first.subscribe(topic, 1);
            first.disconnect();
        }
        var publisher = broker.publishers().v5();
        publisher.publish(topic, "nobody home", 1, false);
        try (var again = connectKeepingSession(V5, clientId, 60)) {
            assertFalse(again.sessionPresent(), "the session ended with the connection");
            again.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: a session with Session Expiry Interval 2 s is still there after a short absence (3.1.2.11.2) [MQTT-3.1.2-23] [MQTT-3.2.2-3]")
    void sessionSurvivesAShortAbsence() throws Exception {
        String clientId = Names.clientId("short");
        String topic = Names.topic("short");
        try (var first = connectKeepingSession(V5, clientId, 2)) {
            first.subscribe(topic, 1);
            first.disconnect();
        }
        var publisher = broker.publishers().v5();
        publisher.publish(topic, "waiting", 1, false);
        try (var again = connectKeepingSession(V5, clientId, 2)) {
            assertTrue(again.sessionPresent());
            assertEquals("waiting", again.inbox().next().text());
        }
    }

    /** A raw CONNECT that keeps the session: Clean Session 0 (3.1.1), or Clean Start 0 with Session Expiry Interval 60 s (5.0). */
    private static Connect keepingSession(int version, String clientId) {
        var connect = Connect.of(version, clientId).withCleanStart(false);
        if (version == V5) connect = connect.withProperties(new RawClient.Bytes().u8(0x11).u32(60).toByteArray());
        return connect;
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("an unacknowledged QoS 1 PUBLISH is sent again on resume, same packet id, DUP 1 [MQTT-4.4.0-1] [MQTT-3.3.1-1]")
    void unacknowledgedPublishIsResentOnResume(int version) throws Exception {
        String clientId = Names.clientId("resend1");
        String topic = Names.topic("resend1");
        int packetId;
        try (var first = broker.raw(keepingSession(version, clientId))) {
            var publisher = broker.publishers().get(version);
            first.send(RawClient.subscribe(version, 1, new Filter(topic, 1)));
            first.expect(SUBACK);
            publisher.publish(topic, "ack me", 1, false);
            var publish = first.expect(PUBLISH).publish(version);
            assertFalse(publish.dup());
            packetId = publish.packetId();
        }   // closed without PUBACK
        try (var resumed = broker.raw()) {
            resumed.send(keepingSession(version, clientId).bytes());
            var connAck = resumed.expect(CONNACK);
            assertTrue(connAck.sessionPresent());
            var again = resumed.expect(PUBLISH).publish(version);
            assertEquals("ack me", again.payloadText());
            assertEquals(packetId, again.packetId(), "the original packet identifier");
            assertTrue(again.dup(), "DUP 1 on a re-delivery");
            resumed.send(RawClient.ack(PUBACK, packetId));
            resumed.send(RawClient.pingReq());
            resumed.expect(PINGRESP);   // nothing else was queued before it
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("an unacknowledged PUBREL is sent again on resume, and the PUBLISH is not [MQTT-4.4.0-1] [MQTT-4.3.3-6 (5.0)]")
    void unacknowledgedPubRelIsResentOnResume(int version) throws Exception {
        String clientId = Names.clientId("resend2");
        String topic = Names.topic("resend2");
        int packetId;
        try (var first = broker.raw(keepingSession(version, clientId))) {
            var publisher = broker.publishers().get(version);
            first.send(RawClient.subscribe(version, 1, new Filter(topic, 2)));
            first.expect(SUBACK);
            publisher.publish(topic, "complete me", 2, false);
            packetId = first.expect(PUBLISH).publish(version).packetId();
            first.send(RawClient.ack(PUBREC, packetId));
            assertEquals(packetId, first.expect(PUBREL).packetId());
        }   // closed without PUBCOMP
        try (var resumed = broker.raw()) {
            resumed.send(keepingSession(version, clientId).bytes());
            assertTrue(resumed.expect(CONNACK).sessionPresent());
            var pubRel = resumed.read();
            assertEquals(PUBREL, pubRel.type(), () -> "expected the PUBREL again, got " + pubRel);
            assertEquals(0b0010, pubRel.flags());
            assertEquals(packetId, pubRel.packetId());
            resumed.send(RawClient.ack(PUBCOMP, packetId));
            resumed.send(RawClient.pingReq());
            resumed.expect(PINGRESP);   // no PUBLISH of the message again
        }
    }

    private static List<String> expected(String prefix) {
        return IntStream.range(0, QUEUED).mapToObj(i -> prefix + i).toList();
    }

    private static List<String> texts(List<Inbox.Message> messages, String topic) {
        return messages.stream().filter(m -> m.topic().equals(topic)).map(Inbox.Message::text).toList();
    }
}
