package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.connection.InboundPublish.Accepted;
import io.pekquitto.shards.connection.InboundPublish.AcknowledgedOnly;
import io.pekquitto.shards.connection.InboundPublish.Violation;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import org.junit.jupiter.api.Test;

/** The rules for a PUBLISH from the client (3.3), without a connection: what to route, acknowledge or refuse. */
class InboundPublishTest {
    private static final long NOW = 1_000L;
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();

    private final Session session = new Session("c", 100, false);
    private InboundPublish rules = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, true);

    private static Publish publish(String topic, QoS qos, Properties properties) {
        return new Publish(topic, Binary.utf8("x"), qos, false, false, qos == QoS.AT_MOST_ONCE ? 0 : 7, properties);
    }

    private static Properties alias(int alias) {
        return Properties.builder().set(PropertyId.TOPIC_ALIAS, alias).build();
    }

    private ReasonCode violation(InboundPublish.Outcome outcome) {
        return assertInstanceOf(Violation.class, outcome).reason();
    }

    @Test
    void qos0IsRoutedWithoutAcknowledgement() {
        var accepted = assertInstanceOf(Accepted.class, rules.receive(publish("a/b", QoS.AT_MOST_ONCE, Properties.NONE), session, NOW));
        assertEquals("a/b", accepted.message().topic());
        assertNull(accepted.ack());
    }

    @Test
    void qos1IsRoutedAndAcknowledgedWithPubAck() {  // [MQTT-4.3.2-2]
        var accepted = assertInstanceOf(Accepted.class, rules.receive(publish("a/b", QoS.AT_LEAST_ONCE, Properties.NONE), session, NOW));
        assertEquals(new PubAck(7), accepted.ack());
    }

    @Test
    void qos2IsRoutedOnceAndAResendIsOnlyAcknowledged() {  // 4.3.3 method B, [MQTT-4.3.3-9]
        var first = assertInstanceOf(Accepted.class, rules.receive(publish("a/b", QoS.EXACTLY_ONCE, Properties.NONE), session, NOW));
        assertEquals(7, assertInstanceOf(PubRec.class, first.ack()).packetId());
        var resend = rules.receive(publish("a/b", QoS.EXACTLY_ONCE, Properties.NONE), session, NOW);
        assertEquals(7, assertInstanceOf(PubRec.class, assertInstanceOf(AcknowledgedOnly.class, resend).ack()).packetId(),
                "the same packet id before PUBREL: acknowledged, not delivered again");
    }

    @Test
    void pubRelCompletesAndFreesThePacketIdForANewMessage() {  // [MQTT-4.3.3-9]
        rules.receive(publish("a/b", QoS.EXACTLY_ONCE, Properties.NONE), session, NOW);
        assertEquals(ReasonCode.SUCCESS, rules.release(new PubRel(7, ReasonCode.SUCCESS, Properties.NONE), session).reason());
        assertInstanceOf(Accepted.class, rules.receive(publish("a/b", QoS.EXACTLY_ONCE, Properties.NONE), session, NOW),
                "after PUBCOMP the id names a new message");
    }

    @Test
    void pubRelOfAnUnknownIdIsAnsweredWith0x92InMqtt5Only() {  // 3.7.2.1
        assertEquals(ReasonCode.PACKET_IDENTIFIER_NOT_FOUND,
                rules.release(new PubRel(9, ReasonCode.SUCCESS, Properties.NONE), session).reason());
        var v311 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_3_1_1, false);
        assertEquals(ReasonCode.SUCCESS, v311.release(new PubRel(9, ReasonCode.SUCCESS, Properties.NONE), session).reason());
    }

    @Test
    void aTopicAliasIsSetByOnePublishAndStandsForTheTopicInTheNext() {  // 3.3.2.3.4
        var set = assertInstanceOf(Accepted.class, rules.receive(publish("long/topic", QoS.AT_MOST_ONCE, alias(3)), session, NOW));
        assertTrue(set.message().properties().topicAlias().isEmpty(), "the alias is the sender's, never forwarded");
        var used = assertInstanceOf(Accepted.class, rules.receive(publish("", QoS.AT_MOST_ONCE, alias(3)), session, NOW));
        assertEquals("long/topic", used.message().topic());
    }

    @Test
    void anAliasCanBeMappedToAnotherTopic() {  // 3.3.2.3.4: a new mapping replaces the old
        rules.receive(publish("first", QoS.AT_MOST_ONCE, alias(1)), session, NOW);
        rules.receive(publish("second", QoS.AT_MOST_ONCE, alias(1)), session, NOW);
        var used = assertInstanceOf(Accepted.class, rules.receive(publish("", QoS.AT_MOST_ONCE, alias(1)), session, NOW));
        assertEquals("second", used.message().topic());
    }

    @Test
    void topicAliasZeroOrAboveTheMaximumIsInvalid() {  // [MQTT-3.3.2-8] [MQTT-3.3.2-9]
        assertEquals(ReasonCode.TOPIC_ALIAS_INVALID, violation(rules.receive(publish("t", QoS.AT_MOST_ONCE, alias(0)), session, NOW)));
        int maximum = DEFAULTS.topicAliasMaximum();
        assertEquals(ReasonCode.TOPIC_ALIAS_INVALID,
                violation(rules.receive(publish("t", QoS.AT_MOST_ONCE, alias(maximum + 1)), session, NOW)));
        assertInstanceOf(Accepted.class, rules.receive(publish("t", QoS.AT_MOST_ONCE, alias(maximum)), session, NOW));
    }

    @Test
    void anEmptyTopicWithAnUnknownAliasIsAProtocolError() {  // 3.3.4: an alias must be set before it is used
        assertEquals(ReasonCode.PROTOCOL_ERROR, violation(rules.receive(publish("", QoS.AT_MOST_ONCE, alias(2)), session, NOW)));
    }

    @Test
    void withTopicAliasMaximumZeroEveryAliasIsInvalid() {  // [MQTT-3.2.2-18]
        rules = new InboundPublish(BrokerSettings.parse("topic-alias-maximum = 0"), ProtocolVersion.MQTT_5, true);
        assertEquals(ReasonCode.TOPIC_ALIAS_INVALID, violation(rules.receive(publish("t", QoS.AT_MOST_ONCE, alias(1)), session, NOW)));
    }

    @Test
    void anEmptyTopicWithoutAliasOrAWildcardTopicIsInvalid() {  // [MQTT-3.3.2-2]
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, violation(rules.receive(publish("", QoS.AT_MOST_ONCE, Properties.NONE), session, NOW)));
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, violation(rules.receive(publish("a/+", QoS.AT_MOST_ONCE, Properties.NONE), session, NOW)));
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, violation(rules.receive(publish("a/#", QoS.AT_MOST_ONCE, Properties.NONE), session, NOW)));
    }

    @Test
    void aSubscriptionIdentifierFromTheClientIsAProtocolError() {  // [MQTT-3.3.4-6]
        var properties = Properties.builder().addSubscriptionIdentifier(5).build();
        assertEquals(ReasonCode.PROTOCOL_ERROR, violation(rules.receive(publish("t", QoS.AT_MOST_ONCE, properties), session, NOW)));
    }

    @Test
    void aQosAboveTheServerMaximumIsRefused() {  // [MQTT-3.2.2-11]
        rules = new InboundPublish(BrokerSettings.parse("max-qos = 1"), ProtocolVersion.MQTT_5, true);
        assertEquals(ReasonCode.QOS_NOT_SUPPORTED, violation(rules.receive(publish("t", QoS.EXACTLY_ONCE, Properties.NONE), session, NOW)));
        assertInstanceOf(Accepted.class, rules.receive(publish("t", QoS.AT_LEAST_ONCE, Properties.NONE), session, NOW));
    }

    @Test
    void retainIsRefusedWhenTheServerDoesNotOfferIt() {  // [MQTT-3.2.2-14]
        rules = new InboundPublish(BrokerSettings.parse("retain-available = false"), ProtocolVersion.MQTT_5, true);
        var retained = new Publish("t", Binary.utf8("x"), QoS.AT_MOST_ONCE, true, false, 0, Properties.NONE);
        assertEquals(ReasonCode.RETAIN_NOT_SUPPORTED, violation(rules.receive(retained, session, NOW)));
    }

    @Test
    void aPayloadAnnouncedAsUtf8ThatIsNotIsRefusedWith0x99() {  // 3.3.2.3.2
        var utf8 = Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1).build();
        var invalid = Binary.wrap(new byte[] {(byte) 0xC3, (byte) 0x28});
        var qos1 = new Publish("t", invalid, QoS.AT_LEAST_ONCE, false, false, 4, utf8);
        var ack = assertInstanceOf(PubAck.class, assertInstanceOf(AcknowledgedOnly.class, rules.receive(qos1, session, NOW)).ack());
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, ack.reason());
        assertTrue(ack.properties().reasonString().isPresent(), "the client asked for problem information");
        var qos2 = new Publish("t", invalid, QoS.EXACTLY_ONCE, false, false, 5, utf8);
        var rec = assertInstanceOf(PubRec.class, assertInstanceOf(AcknowledgedOnly.class, rules.receive(qos2, session, NOW)).ack());
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, rec.reason());
        var qos0 = new Publish("t", invalid, QoS.AT_MOST_ONCE, false, false, 0, utf8);
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, violation(rules.receive(qos0, session, NOW)), "no ack to carry it: DISCONNECT");
    }

    @Test
    void aValidUtf8PayloadOrAnUnspecifiedOneIsRouted() {
        var utf8 = Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1).build();
        assertInstanceOf(Accepted.class, rules.receive(new Publish("t", Binary.utf8("grüße"), QoS.AT_MOST_ONCE, false, false, 0, utf8), session, NOW));
        var bytes = Binary.wrap(new byte[] {(byte) 0xC3, (byte) 0x28});
        assertInstanceOf(Accepted.class, rules.receive(new Publish("t", bytes, QoS.AT_MOST_ONCE, false, false, 0, Properties.NONE), session, NOW),
                "indicator 0 or absent: bytes are not checked");
    }

    @Test
    void noReasonStringWhenTheClientAskedForNoProblemInformation() {  // [MQTT-3.1.2-29]
        rules = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, false);
        var utf8 = Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1).build();
        var qos1 = new Publish("t", Binary.wrap(new byte[] {(byte) 0xFF}), QoS.AT_LEAST_ONCE, false, false, 4, utf8);
        var ack = assertInstanceOf(PubAck.class, assertInstanceOf(AcknowledgedOnly.class, rules.receive(qos1, session, NOW)).ack());
        assertTrue(ack.properties().reasonString().isEmpty());
    }

    @Test
    void moreUnreleasedQos2ThanReceiveMaximumEndsAnMqtt5ClientUnderTheStrictPolicy() {  // [MQTT-3.3.4-9]
        rules = new InboundPublish(BrokerSettings.parse("receive-maximum = 2"), ProtocolVersion.MQTT_5, true);
        for (int id = 1; id <= 2; id++) {
            var outcome = rules.receive(new Publish("t", Binary.EMPTY, QoS.EXACTLY_ONCE, false, false, id, Properties.NONE), session, NOW);
            assertInstanceOf(Accepted.class, outcome, "id " + id);
        }
        var third = rules.receive(new Publish("t", Binary.EMPTY, QoS.EXACTLY_ONCE, false, false, 3, Properties.NONE), session, NOW);
        assertEquals(ReasonCode.RECEIVE_MAXIMUM_EXCEEDED, violation(third), "a third awaiting PUBREL with Receive Maximum 2");
        var v311 = new InboundPublish(BrokerSettings.parse("receive-maximum = 2"), ProtocolVersion.MQTT_3_1_1, false);
        var v311Session = new Session("c311", 100, false);
        for (int id = 1; id <= 3; id++) {
            var outcome = v311.receive(new Publish("t", Binary.EMPTY, QoS.EXACTLY_ONCE, false, false, id, Properties.NONE), v311Session, NOW);
            assertInstanceOf(Accepted.class, outcome, "a 3.1.1 client was never told a limit");
        }
    }

    @Test
    void theMessageKeepsTheTimeItWasReceivedForItsExpiry() {  // [MQTT-3.3.2-5]
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        var accepted = assertInstanceOf(Accepted.class, rules.receive(publish("t", QoS.AT_MOST_ONCE, properties), session, NOW));
        assertTrue(!accepted.message().isExpired(NOW + 9_999_999_999L) && accepted.message().isExpired(NOW + 10_000_000_000L));
    }
}
