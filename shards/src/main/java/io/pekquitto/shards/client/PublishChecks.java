package io.pekquitto.shards.client;

import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.settings.BrokerSettings;

/**
 * The rules for a message an in-process client publishes, or leaves as its will: what the decoder and
 * {@code InboundPublish} judge for a socket client's PUBLISH, with a reason code in the answer where a
 * socket client would be disconnected. A valid topic name ([MQTT-4.7.3-1], no wildcard [MQTT-3.3.2-2])
 * in well-formed UTF-8 ([MQTT-1.5.4-1], [MQTT-1.5.4-2]); not under {@code $SYS} (the broker's); what
 * the ACLs allow; QoS within {@code max-qos} ([MQTT-3.2.2-11]); retain only where available
 * ([MQTT-3.2.2-14]); a Response Topic without wildcards ([MQTT-3.3.2-14]); a payload that is UTF-8
 * when it says so (0x99, 3.3.2.3.2); and no larger, as a PUBLISH, than {@code max-packet-size}.
 */
final class PublishChecks {

    /** The outcome for one message. */
    sealed interface Outcome {}

    /** The message to route. */
    record Accepted(Message message) implements Outcome {}

    /** Not routed, with the reason code a socket client would have had. */
    record Refused(ReasonCode reason, String why) implements Outcome {}

    private PublishChecks() {}

    static Outcome check(String topic, Binary payload, QoS qos, boolean retain, MessageProperties properties,
                         ClientAuthorizer acl, BrokerSettings settings, long now) {
        if (!TopicName.isValid(topic) || !isMqttString(topic)) return new Refused(ReasonCode.TOPIC_NAME_INVALID, "invalid topic name");
        if (TopicName.isBrokers(topic)) return new Refused(ReasonCode.NOT_AUTHORIZED, "$SYS topics are the broker's");
        if (!acl.canPublish(topic)) return new Refused(ReasonCode.NOT_AUTHORIZED, "the ACLs do not allow it");
        if (qos.value() > settings.maxQos()) return new Refused(ReasonCode.QOS_NOT_SUPPORTED, "QoS above the server maximum");
        if (retain && !settings.retainAvailable()) return new Refused(ReasonCode.RETAIN_NOT_SUPPORTED, "retain is not available");
        var responseTopic = properties.responseTopic();
        if (responseTopic.isPresent() && !(TopicName.isValid(responseTopic.get()) && isMqttString(responseTopic.get()))) {
            return new Refused(ReasonCode.TOPIC_NAME_INVALID, "invalid response topic");
        }
        if (!properties.contentType().map(PublishChecks::isMqttString).orElse(true)
                || !properties.userProperties().stream().allMatch(p -> isMqttString(p.name()) && isMqttString(p.value()))) {
            return new Refused(ReasonCode.MALFORMED_PACKET, "a property is not a well-formed UTF-8 string");
        }
        if (properties.utf8Payload() && !payload.isUtf8()) return new Refused(ReasonCode.PAYLOAD_FORMAT_INVALID, "payload is not UTF-8");
        var wire = properties.toProperties();
        try {
            var size = PacketEncoder.encodedSize(new Publish(topic, payload, qos, retain, false, qos == QoS.AT_MOST_ONCE ? 0 : 1, wire),
                    ProtocolVersion.MQTT_5);
            if (size > settings.maxPacketSize()) return new Refused(ReasonCode.PACKET_TOO_LARGE, "larger than max-packet-size");
        } catch (IllegalArgumentException e) {
            return new Refused(ReasonCode.PACKET_TOO_LARGE, e.getMessage());  // a field or the packet too long for MQTT
        }
        return new Accepted(Message.received(topic, payload, qos, retain, wire, now));
    }

    /**
     * Whether a Java string is an MQTT UTF-8 string (1.5.4): no U+0000 and no unpaired surrogate, which
     * would not survive the encoding; its length is the encoder's to judge.
     */
    static boolean isMqttString(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) return false;
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
