package io.pekquitto.shards.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.acl.AclAuthorizer;
import io.pekquitto.auth.acl.AclFile;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PublishChecksTest {
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();
    private static final long NOW = 1_000_000_000L;
    private static final ClientAuthorizer TRUSTED = Authorizer.ALLOW_ALL.forClient(null);
    private static final Binary PAYLOAD = Binary.utf8("21.5");

    private static PublishChecks.Outcome check(String topic, QoS qos, boolean retain, MessageProperties properties,
                                               BrokerSettings settings) {
        return PublishChecks.check(topic, PAYLOAD, qos, retain, properties, TRUSTED, settings, NOW);
    }

    private static ReasonCode refusal(PublishChecks.Outcome outcome) {
        return assertInstanceOf(PublishChecks.Refused.class, outcome).reason();
    }

    @Test
    void aValidMessageIsRoutedWithItsProperties() {
        var properties = MessageProperties.NONE.withContentType("text/plain").withMessageExpiryInterval(10)
                .withResponseTopic("replies/1").withCorrelationData(Binary.utf8("42")).withUserProperty("unit", "C");
        var message = assertInstanceOf(PublishChecks.Accepted.class,
                check("sensors/kitchen", QoS.EXACTLY_ONCE, true, properties, DEFAULTS)).message();
        assertEquals("sensors/kitchen", message.topic());
        assertEquals(QoS.EXACTLY_ONCE, message.qos());
        assertTrue(message.retain());
        assertEquals(properties, MessageProperties.of(message.properties()));
        assertEquals(NOW + 10_000_000_000L, message.expiryDeadline(), "expiry counted from now");
    }

    @Test
    void aTopicNameHasNoWildcardAndIsNotEmpty() {  // [MQTT-3.3.2-2], [MQTT-4.7.3-1]
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("a/+", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("a/#", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
    }

    @Test
    void aTopicNameIsWellFormedUtf8() {  // [MQTT-1.5.4-1], [MQTT-1.5.4-2]
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("a\u0000b", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("a\uD800b", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
        assertInstanceOf(PublishChecks.Accepted.class, check("emoji/\uD83D\uDE00", QoS.AT_MOST_ONCE, false, MessageProperties.NONE, DEFAULTS));
    }

    @Test
    void sysTopicsAreTheBrokers() {
        assertEquals(ReasonCode.NOT_AUTHORIZED, refusal(check("$SYS/broker/uptime", QoS.AT_LEAST_ONCE, false, MessageProperties.NONE, DEFAULTS)));
        assertInstanceOf(PublishChecks.Accepted.class, check("$SYSTEM/x", QoS.AT_LEAST_ONCE, false, MessageProperties.NONE, DEFAULTS));
    }

    @Test
    void theAclsJudgeAClientWithAUsername() {
        var acl = new AclAuthorizer(AclFile.parse(List.of("user alice", "topic write home/alice/#"), "test"))
                .forClient(new ClientIdentity("c", Optional.of("alice"), ConnectChecks.IN_PROCESS));
        var allowed = PublishChecks.check("home/alice/lamp", PAYLOAD, QoS.AT_MOST_ONCE, false, MessageProperties.NONE, acl, DEFAULTS, NOW);
        var refused = PublishChecks.check("home/bob/lamp", PAYLOAD, QoS.AT_MOST_ONCE, false, MessageProperties.NONE, acl, DEFAULTS, NOW);
        assertInstanceOf(PublishChecks.Accepted.class, allowed);
        assertEquals(ReasonCode.NOT_AUTHORIZED, refusal(refused));
    }

    @Test
    void theServersQosAndRetainLimitsApply() {  // [MQTT-3.2.2-11], [MQTT-3.2.2-14]
        var limited = BrokerSettings.parse("max-qos = 1\nretain-available = false");
        assertEquals(ReasonCode.QOS_NOT_SUPPORTED, refusal(check("a", QoS.EXACTLY_ONCE, false, MessageProperties.NONE, limited)));
        assertEquals(ReasonCode.RETAIN_NOT_SUPPORTED, refusal(check("a", QoS.AT_LEAST_ONCE, true, MessageProperties.NONE, limited)));
    }

    @Test
    void aResponseTopicIsATopicName() {  // [MQTT-3.3.2-14]
        var wildcard = MessageProperties.NONE.withResponseTopic("replies/#");
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(check("a", QoS.AT_MOST_ONCE, false, wildcard, DEFAULTS)));
    }

    @Test
    void propertyStringsAreWellFormedUtf8() {
        var badUserProperty = MessageProperties.NONE.withUserProperty("unit", "\uDC00");
        assertEquals(ReasonCode.MALFORMED_PACKET, refusal(check("a", QoS.AT_MOST_ONCE, false, badUserProperty, DEFAULTS)));
        var badContentType = MessageProperties.NONE.withContentType("text\u0000");
        assertEquals(ReasonCode.MALFORMED_PACKET, refusal(check("a", QoS.AT_MOST_ONCE, false, badContentType, DEFAULTS)));
    }

    @Test
    void aPayloadSaidToBeUtf8MustBe() {  // 3.3.2.3.2
        var notUtf8 = Binary.of(new byte[] {(byte) 0xC3, 0x28});
        var outcome = PublishChecks.check("a", notUtf8, QoS.AT_LEAST_ONCE, false, MessageProperties.NONE.withUtf8Payload(),
                TRUSTED, DEFAULTS, NOW);
        assertEquals(ReasonCode.PAYLOAD_FORMAT_INVALID, refusal(outcome));
    }

    @Test
    void aMessageLargerThanMaxPacketSizeIsRefused() {
        var small = BrokerSettings.parse("max-packet-size = 64");
        var large = Binary.of(new byte[100]);
        var outcome = PublishChecks.check("a", large, QoS.AT_MOST_ONCE, false, MessageProperties.NONE, TRUSTED, small, NOW);
        assertEquals(ReasonCode.PACKET_TOO_LARGE, refusal(outcome));
        var tooLongForMqtt = MessageProperties.NONE.withCorrelationData(Binary.of(new byte[70_000]));
        assertEquals(ReasonCode.PACKET_TOO_LARGE, refusal(check("a", QoS.AT_MOST_ONCE, false, tooLongForMqtt, DEFAULTS)));
    }

    @Test
    void mqttStringsHaveNoNulAndNoLoneSurrogate() {
        assertTrue(PublishChecks.isMqttString("caf\u00e9 \uD83D\uDE00"));
        assertFalse(PublishChecks.isMqttString("\uD83D"));
        assertFalse(PublishChecks.isMqttString("\uDE00\uD83D"));
        assertFalse(PublishChecks.isMqttString("\u0000"));
    }
}
