package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import org.junit.jupiter.api.Test;

class InboundPublishTest {
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();
    private static final long NOW = 1_000_000_000L;
    /** 0xC3 0x28: a two-byte sequence whose continuation byte is invalid, so not UTF-8. */
    private static final Binary NOT_UTF8 = Binary.of(new byte[] {(byte) 0xC3, 0x28});

    private final Session session = new Session("c", 100, false);

    private static InboundPublish v5(BrokerSettings settings) {
        return new InboundPublish(settings, ProtocolVersion.MQTT_5, true, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT));
    }

    private static Publish publish(String topic, QoS qos, int packetId, Properties properties) {
        return new Publish(topic, Binary.utf8("x"), qos, false, false, packetId, properties);
    }

    private static Properties alias(int alias) {
        return Properties.builder().set(PropertyId.TOPIC_ALIAS, alias).build();
    }

    private static Properties utf8Payload() {
        return Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1).build();
    }

    private static ReasonCode violation(InboundPublish.Outcome outcome) {
        return assertInstanceOf(InboundPublish.Violation.class, outcome).reason();
    }

    @Test
    void qos0IsRoutedWithoutAcknowledgement() {
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                v5(DEFAULTS).receive(publish("a/b", QoS.AT_MOST_ONCE, 0, Properties.NONE), session, NOW));
        assertEquals("a/b", accepted.message().topic());
        assertNull(accepted.ack());
    }

    @Test
    void aPublishToSysIsNeitherRoutedNorRetained() {  // 4.7.2: $SYS is the broker's
        var v5 = v5(DEFAULTS);
        var qos1 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("$SYS/broker/uptime", QoS.AT_LEAST_ONCE, 3, Properties.NONE), session, NOW));
        assertEquals(ReasonCode.NOT_AUTHORIZED, assertInstanceOf(PubAck.class, qos1.ack()).reason());
        var qos2 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("$SYS", QoS.EXACTLY_ONCE, 4, Properties.NONE), session, NOW));
        assertEquals(ReasonCode.NOT_AUTHORIZED, assertInstanceOf(PubRec.class, qos2.ack()).reason());
        assertEquals(0, session.awaitingPubRelCount(), "a refused QoS 2 PUBLISH awaits no PUBREL");
        assertNull(assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("$SYS/x", QoS.AT_MOST_ONCE, 0, Properties.NONE), session, NOW)).ack(), "QoS 0: dropped");

        var v311 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_3_1_1, false, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT));
        assertEquals(new PubAck(5), assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v311.receive(publish("$SYS/x", QoS.AT_LEAST_ONCE, 5, Properties.NONE), session, NOW)).ack(),
                "3.1.1 has no reason code: acknowledged and dropped");

        assertInstanceOf(InboundPublish.Accepted.class,
                v5.receive(publish("$SYSTEM/x", QoS.AT_MOST_ONCE, 0, Properties.NONE), session, NOW), "only $SYS and below");
    }

    /** May publish under "mine/" only, and only as client "c". */
    private static final Authorizer MINE_ONLY = new Authorizer() {
        @Override
        public boolean canPublish(ClientIdentity client, String topic) {
            return client.clientId().equals("c") && topic.startsWith("mine/");
        }

        @Override
        public boolean canSubscribe(ClientIdentity client, String filter) {
            return false;
        }
    };

    @Test
    void aPublishTheAclsRefuseIsNotRoutedAndGetsNotAuthorized() {  // 3.3.5: a server may refuse; 0x87 in MQTT 5
        var v5 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, true, MINE_ONLY.forClient(TestConnections.CLIENT));
        assertInstanceOf(InboundPublish.Accepted.class, v5.receive(publish("mine/a", QoS.AT_LEAST_ONCE, 1, Properties.NONE), session, NOW));
        var qos1 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("theirs/a", QoS.AT_LEAST_ONCE, 2, Properties.NONE), session, NOW));
        assertEquals(ReasonCode.NOT_AUTHORIZED, assertInstanceOf(PubAck.class, qos1.ack()).reason());
        var qos2 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("theirs/a", QoS.EXACTLY_ONCE, 3, Properties.NONE), session, NOW));
        assertEquals(ReasonCode.NOT_AUTHORIZED, assertInstanceOf(PubRec.class, qos2.ack()).reason());
        assertEquals(0, session.awaitingPubRelCount(), "a refused QoS 2 PUBLISH awaits no PUBREL");
        assertNull(assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v5.receive(publish("theirs/a", QoS.AT_MOST_ONCE, 0, Properties.NONE), session, NOW)).ack(), "QoS 0: dropped");

        var v311 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_3_1_1, false, MINE_ONLY.forClient(TestConnections.CLIENT));
        assertEquals(new PubAck(4), assertInstanceOf(InboundPublish.AcknowledgedOnly.class,
                v311.receive(publish("theirs/a", QoS.AT_LEAST_ONCE, 4, Properties.NONE), session, NOW)).ack(),
                "3.1.1 has no reason code: acknowledged and dropped");
        var aliased = v5.receive(publish("theirs/b", QoS.AT_LEAST_ONCE, 5, alias(1)), session, NOW);
        assertInstanceOf(InboundPublish.AcknowledgedOnly.class, aliased);
        assertInstanceOf(InboundPublish.AcknowledgedOnly.class, v5.receive(publish("", QoS.AT_LEAST_ONCE, 6, alias(1)), session, NOW),
                "a topic alias is judged by the topic it stands for");
    }

    @Test
    void qos1IsRoutedAndAcknowledgedWithItsPacketId() {  // [MQTT-4.3.2-2]
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                v5(DEFAULTS).receive(publish("a", QoS.AT_LEAST_ONCE, 7, Properties.NONE), session, NOW));
        assertEquals(new PubAck(7), accepted.ack());
    }

    @Test
    void aTopicAliasSetByOnePublishStandsForTheTopicInTheNext() {  // 3.3.2.3.4
        var inbound = v5(DEFAULTS);
        inbound.receive(publish("sensors/1", QoS.AT_MOST_ONCE, 0, alias(3)), session, NOW);
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                inbound.receive(publish("", QoS.AT_MOST_ONCE, 0, alias(3)), session, NOW));
        assertEquals("sensors/1", accepted.message().topic());
    }

    @Test
    void theTopicAliasIsNotForwardedToSubscribers() {  // an alias belongs to one connection [MQTT-3.3.2-7]
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                v5(DEFAULTS).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW));
        assertFalse(accepted.message().properties().has(PropertyId.TOPIC_ALIAS));
    }

    @Test
    void aClientMayMapAnAliasToANewTopic() {  // 3.3.2.3.4: a non-empty topic with a known alias replaces the mapping
        var inbound = v5(DEFAULTS);
        inbound.receive(publish("old", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW);
        inbound.receive(publish("new", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW);
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                inbound.receive(publish("", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW));
        assertEquals("new", accepted.message().topic());
    }

    @Test
    void topicAliasesDoNotOutliveTheConnection() {  // [MQTT-3.3.2-7]: a new connection starts with no aliases
        v5(DEFAULTS).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW);
        var next = v5(DEFAULTS);
        assertEquals(ReasonCode.PROTOCOL_ERROR, violation(next.receive(publish("", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW)));
    }

    @Test
    void anAliasThatWasNeverSetIsAProtocolError() {  // 3.3.2.3.4
        assertEquals(ReasonCode.PROTOCOL_ERROR,
                violation(v5(DEFAULTS).receive(publish("", QoS.AT_MOST_ONCE, 0, alias(2)), session, NOW)));
    }

    @Test
    void topicAliasZeroIsRefused() {  // [MQTT-3.3.2-8]
        var reason = violation(v5(DEFAULTS).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(0)), session, NOW));
        // The spec forbids 0 without naming a code; 0x94 (as Mosquitto) or 0x82 are both a DISCONNECT.
        assertTrue(reason == ReasonCode.TOPIC_ALIAS_INVALID || reason == ReasonCode.PROTOCOL_ERROR, reason::toString);
    }

    @Test
    void topicAliasAboveTheMaximumIsTopicAliasInvalid() {  // [MQTT-3.3.2-9], reason code 0x94
        var settings = BrokerSettings.parse("topic-alias-maximum = 5");
        assertEquals(ReasonCode.TOPIC_ALIAS_INVALID,
                violation(v5(settings).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(6)), session, NOW)));
        assertInstanceOf(InboundPublish.Accepted.class,
                v5(settings).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(5)), session, NOW));
    }

    @Test
    void anyTopicAliasIsInvalidWhenTheServerAllowsNone() {  // [MQTT-3.2.2-17]: Topic Alias Maximum 0
        var settings = BrokerSettings.parse("topic-alias-maximum = 0");
        assertEquals(ReasonCode.TOPIC_ALIAS_INVALID,
                violation(v5(settings).receive(publish("a", QoS.AT_MOST_ONCE, 0, alias(1)), session, NOW)));
    }

    @Test
    void anEmptyTopicWithoutAliasIsAProtocolError() {
        // 3.3.2.3.4: "It is a Protocol Error if the Topic Name is zero length and there is no Topic Alias".
        assertEquals(ReasonCode.PROTOCOL_ERROR,
                violation(v5(DEFAULTS).receive(publish("", QoS.AT_MOST_ONCE, 0, Properties.NONE), session, NOW)));
    }

    @Test
    void aSubscriptionIdentifierFromTheClientIsAProtocolError() {  // [MQTT-3.3.4-6]
        var withId = Properties.builder().addSubscriptionIdentifier(1).build();
        assertEquals(ReasonCode.PROTOCOL_ERROR,
                violation(v5(DEFAULTS).receive(publish("a", QoS.AT_MOST_ONCE, 0, withId), session, NOW)));
    }

    @Test
    void qosAboveTheServerMaximumIsQosNotSupported() {  // [MQTT-3.2.2-11], reason code 0x9B
        var settings = BrokerSettings.parse("max-qos = 1");
        assertEquals(ReasonCode.QOS_NOT_SUPPORTED,
                violation(v5(settings).receive(publish("a", QoS.EXACTLY_ONCE, 1, Properties.NONE), session, NOW)));
        assertInstanceOf(InboundPublish.Accepted.class,
                v5(settings).receive(publish("a", QoS.AT_LEAST_ONCE, 1, Properties.NONE), session, NOW));
    }

    @Test
    void retainWhenNotAvailableIsRetainNotSupported() {  // [MQTT-3.2.2-14], reason code 0x9A
        var settings = BrokerSettings.parse("retain-available = false");
        var retained = new Publish("a", Binary.utf8("x"), QoS.AT_MOST_ONCE, true, false, 0, Properties.NONE);
        assertEquals(ReasonCode.RETAIN_NOT_SUPPORTED, violation(v5(settings).receive(retained, session, NOW)));
    }

    @Test
    void payloadAnnouncedAsUtf8ThatIsNotGetsPubAckPayloadFormatInvalid() {  // 3.3.2.3.2, reason code 0x99
        var bad = new Publish("a", NOT_UTF8, QoS.AT_LEAST_ONCE, false, false, 4, utf8Payload());
        var refused = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, v5(DEFAULTS).receive(bad, session, NOW));
        var pubAck = assertInstanceOf(PubAck.class, refused.ack());
        assertEquals(4, pubAck.packetId());
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, pubAck.reason());
    }

    @Test
    void payloadAnnouncedAsUtf8ThatIsNotGetsPubRecPayloadFormatInvalidAtQos2() {  // 3.3.2.3.2
        var bad = new Publish("a", NOT_UTF8, QoS.EXACTLY_ONCE, false, false, 5, utf8Payload());
        var refused = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, v5(DEFAULTS).receive(bad, session, NOW));
        var pubRec = assertInstanceOf(PubRec.class, refused.ack());
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, pubRec.reason());
    }

    @Test
    void payloadFormatIndicatorZeroAllowsAnyBytes() {  // 3.3.2.3.2: 0 means unspecified bytes
        var binary = Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 0).build();
        var publish = new Publish("a", NOT_UTF8, QoS.AT_LEAST_ONCE, false, false, 4, binary);
        assertInstanceOf(InboundPublish.Accepted.class, v5(DEFAULTS).receive(publish, session, NOW));
    }

    @Test
    void noReasonStringWhenTheClientAskedForNoProblemInformation() {  // [MQTT-3.1.2-29]
        var inbound = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, false, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT));
        var bad = new Publish("a", NOT_UTF8, QoS.AT_LEAST_ONCE, false, false, 4, utf8Payload());
        var refused = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, inbound.receive(bad, session, NOW));
        assertEquals(Properties.NONE, assertInstanceOf(PubAck.class, refused.ack()).properties());
    }

    @Test
    void aQos2ResendBeforePubRelIsAcknowledgedButNotRoutedAgain() {  // [MQTT-4.3.3-9]
        var inbound = v5(DEFAULTS);
        assertInstanceOf(InboundPublish.Accepted.class,
                inbound.receive(publish("a", QoS.EXACTLY_ONCE, 9, Properties.NONE), session, NOW));
        var resend = new Publish("a", Binary.utf8("x"), QoS.EXACTLY_ONCE, false, true, 9, Properties.NONE);
        var again = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, inbound.receive(resend, session, NOW));
        assertEquals(new PubRec(9), again.ack());
    }

    @Test
    void afterPubRelTheSamePacketIdIsANewMessage() {  // [MQTT-4.3.3-11]
        var inbound = v5(DEFAULTS);
        inbound.receive(publish("a", QoS.EXACTLY_ONCE, 9, Properties.NONE), session, NOW);
        assertEquals(new PubComp(9), inbound.release(new PubRel(9), session));
        assertInstanceOf(InboundPublish.Accepted.class,
                inbound.receive(publish("a", QoS.EXACTLY_ONCE, 9, Properties.NONE), session, NOW));
    }

    @Test
    void pubRelForAnUnknownPacketIdGetsPubCompPacketIdentifierNotFound() {  // 3.7.2.1, reason code 0x92
        var pubComp = v5(DEFAULTS).release(new PubRel(12), session);
        assertEquals(12, pubComp.packetId());
        assertEquals(ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, pubComp.reason());
    }

    @Test
    void pubRelForAnUnknownPacketIdGetsAPlainPubCompIn311() {  // 3.1.1 PUBCOMP has no reason code
        var inbound = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_3_1_1, true, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT));
        assertEquals(new PubComp(12), inbound.release(new PubRel(12), session));
    }

    @Test
    void moreQos2PublishesThanReceiveMaximumIsReceiveMaximumExceeded() {  // [MQTT-3.3.4-9], reason code 0x93
        var inbound = v5(BrokerSettings.parse("receive-maximum = 2"));
        inbound.receive(publish("a", QoS.EXACTLY_ONCE, 1, Properties.NONE), session, NOW);
        inbound.receive(publish("a", QoS.EXACTLY_ONCE, 2, Properties.NONE), session, NOW);
        assertEquals(ReasonCode.RECEIVE_MAXIMUM_EXCEEDED,
                violation(inbound.receive(publish("a", QoS.EXACTLY_ONCE, 3, Properties.NONE), session, NOW)));
    }

    @Test
    void aPublishRefusedForReceiveMaximumIsDeliveredWhenResentOnTheResumedSession() {  // [MQTT-4.4.0-1], [MQTT-4.3.3-9]
        var inbound = v5(BrokerSettings.parse("receive-maximum = 1"));
        inbound.receive(publish("a", QoS.EXACTLY_ONCE, 1, Properties.NONE), session, NOW);
        violation(inbound.receive(publish("a", QoS.EXACTLY_ONCE, 2, Properties.NONE), session, NOW));
        // The client reconnects to its session, releases 1 and resends 2, which was never routed.
        var next = v5(BrokerSettings.parse("receive-maximum = 1"));
        next.release(new PubRel(1), session);
        var resend = new Publish("a", Binary.utf8("x"), QoS.EXACTLY_ONCE, false, true, 2, Properties.NONE);
        assertInstanceOf(InboundPublish.Accepted.class, next.receive(resend, session, NOW));
    }

    @Test
    void aLenientReceiveMaximumPolicyAcceptsTheExcess() {
        var inbound = v5(BrokerSettings.parse("receive-maximum = 1\nreceive-maximum-policy = lenient"));
        inbound.receive(publish("a", QoS.EXACTLY_ONCE, 1, Properties.NONE), session, NOW);
        assertInstanceOf(InboundPublish.Accepted.class,
                inbound.receive(publish("a", QoS.EXACTLY_ONCE, 2, Properties.NONE), session, NOW));
    }

    @Test
    void theMessageExpiryIntervalCountsFromReceipt() {  // 3.3.2.3.3
        var expiry = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        var accepted = assertInstanceOf(InboundPublish.Accepted.class,
                v5(DEFAULTS).receive(publish("a", QoS.AT_MOST_ONCE, 0, expiry), session, NOW));
        assertFalse(accepted.message().isExpired(NOW + 9_999_999_999L));
        assertTrue(accepted.message().isExpired(NOW + 10_000_000_000L));
    }

    /** A shard budget that has 5 bytes of room left. */
    private static MemoryBudget almostFull() {
        var budget = new MemoryBudget(100, 0);
        budget.held(0, 95);
        return budget;
    }

    private static Publish retained(QoS qos, String payload) {
        return new Publish("r/t", Binary.utf8(payload), qos, true, false, qos == QoS.AT_MOST_ONCE ? 0 : 9, Properties.NONE);
    }

    @Test
    void aRetainedMessageTheBudgetHasNoRoomForIsRefusedWithQuotaExceededInMqtt5() {
        var budget = almostFull();
        var inbound = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, true, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT), budget);
        var qos1 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, inbound.receive(retained(QoS.AT_LEAST_ONCE, "too big"), session, NOW));
        var pubAck = assertInstanceOf(PubAck.class, qos1.ack());
        assertEquals(ReasonCode.QUOTA_EXCEEDED, pubAck.reason());
        assertTrue(pubAck.properties().reasonString().isPresent(), "with a reason string");
        var qos2 = assertInstanceOf(InboundPublish.AcknowledgedOnly.class, inbound.receive(retained(QoS.EXACTLY_ONCE, "too big"), session, NOW));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, assertInstanceOf(PubRec.class, qos2.ack()).reason());
        assertEquals(0, session.awaitingPubRelCount(), "refused: no PUBREL awaited");
        assertEquals(2, budget.figures().retainedRefused());
    }

    @Test
    void withoutAReasonCodeToTellItByTheMessageGoesOutButIsNotRetained() {
        var budget = almostFull();
        var v311 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_3_1_1, false, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT), budget);
        var qos1 = assertInstanceOf(InboundPublish.Accepted.class, v311.receive(retained(QoS.AT_LEAST_ONCE, "too big"), session, NOW));
        assertFalse(qos1.message().retain());
        assertEquals(ReasonCode.SUCCESS, assertInstanceOf(PubAck.class, qos1.ack()).reason());
        var v5 = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, true, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT), budget);
        var qos0 = assertInstanceOf(InboundPublish.Accepted.class, v5.receive(retained(QoS.AT_MOST_ONCE, "too big"), session, NOW));
        assertFalse(qos0.message().retain(), "QoS 0 has no acknowledgement to carry one");
        assertEquals(2, budget.figures().retainedRefused());
    }

    @Test
    void aRetainedMessageThatFitsOrClearsTheTopicIsRetained() {
        var budget = almostFull();
        var inbound = new InboundPublish(DEFAULTS, ProtocolVersion.MQTT_5, true, Authorizer.ALLOW_ALL.forClient(TestConnections.CLIENT), budget);
        assertTrue(assertInstanceOf(InboundPublish.Accepted.class, inbound.receive(retained(QoS.AT_LEAST_ONCE, "fits!"), session, NOW))
                .message().retain());
        assertTrue(assertInstanceOf(InboundPublish.Accepted.class, inbound.receive(retained(QoS.AT_LEAST_ONCE, ""), session, NOW))
                .message().retain(), "an empty payload frees the topic: always taken");
        assertEquals(0, budget.figures().retainedRefused());
    }
}
