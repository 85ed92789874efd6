package io.pekquitto.shards.connection;

import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.protocol.Packet;
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
import io.pekquitto.protocol.TopicName;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;

/**
 * The rules for a PUBLISH from the client (3.3) and the PUBREL that completes a QoS 2 one: topic
 * aliases, the server's maximum QoS and retain support, the Payload Format Indicator, the ACLs, and
 * exactly-once receipt of QoS 2 (method B, 4.3.3: delivered onwards at once, a resend only acknowledged), and
 * the memory budget of retained messages. Each PUBLISH is routed with its acknowledgement, refused with a
 * reason code, or ends the connection.
 */
final class InboundPublish {

    /** What to do with one PUBLISH. */
    sealed interface Outcome {}

    /** Route the message; then send {@code ack}, if any (none for QoS 0). */
    record Accepted(Message message, Packet ack) implements Outcome {}

    /** Do not route; only send {@code ack}, if any (a QoS 2 resend, or a refusal with a reason code). */
    record AcknowledgedOnly(Packet ack) implements Outcome {}

    /** A protocol violation: DISCONNECT with this reason and close. */
    record Violation(ReasonCode reason, String why) implements Outcome {}

    private final BrokerSettings settings;
    private final ProtocolVersion version;
    private final boolean problemInformation;
    /** Made at the first PUBLISH with a Topic Alias: most clients never send one, and an idle connection pays for it. */
    private InboundTopicAliases topicAliases;
    private final ClientAuthorizer acl;
    private final MemoryBudget memory;

    /** @param acl the client's ACL decisions ({@link io.pekquitto.auth.Authorizer#forClient}) */
    InboundPublish(BrokerSettings settings, ProtocolVersion version, boolean problemInformation, ClientAuthorizer acl) {
        this(settings, version, problemInformation, acl, MemoryBudget.NONE);
    }

    /** @param memory the shard's budget, which a new retained message must fit in */
    InboundPublish(BrokerSettings settings, ProtocolVersion version, boolean problemInformation, ClientAuthorizer acl,
                   MemoryBudget memory) {
        this.settings = settings;
        this.version = version;
        this.problemInformation = problemInformation;
        this.acl = acl;
        this.memory = memory;
    }

    Outcome receive(Publish publish, Session session, long now) {
        String topic = publish.topic();
        var properties = publish.properties();
        if (version.hasProperties()) {
            if (!properties.subscriptionIdentifiers().isEmpty()) {
                return new Violation(ReasonCode.PROTOCOL_ERROR, "PUBLISH from a client with a Subscription Identifier");
            }
            var alias = properties.topicAlias();
            if (alias.isPresent()) {
                if (topicAliases == null) topicAliases = new InboundTopicAliases(settings.topicAliasMaximum());
                if (!topicAliases.isInRange(alias.get())) return new Violation(ReasonCode.TOPIC_ALIAS_INVALID, "topic alias out of range");
                if (topic.isEmpty()) {
                    topic = topicAliases.resolve(alias.get());
                    if (topic == null) return new Violation(ReasonCode.PROTOCOL_ERROR, "unknown topic alias");
                } else {
                    topicAliases.set(alias.get(), topic);
                }
                properties = properties.toBuilder().remove(PropertyId.TOPIC_ALIAS).build();
            }
        }
        if (topic.isEmpty()) {
            // 3.3.2.3.4: "It is a Protocol Error if the Topic Name is zero length and there is no Topic Alias".
            return new Violation(ReasonCode.PROTOCOL_ERROR, "empty topic name without a topic alias");
        }
        if (!TopicName.isValid(topic)) return new Violation(ReasonCode.TOPIC_NAME_INVALID, "invalid topic name");
        if (TopicName.isBrokers(topic)) return refuseNotAuthorized(publish, "$SYS topics are the broker's");
        if (!acl.canPublish(topic)) return refuseNotAuthorized(publish, "the ACLs do not allow it");
        if (publish.qos().value() > settings.maxQos()) {
            return new Violation(ReasonCode.QOS_NOT_SUPPORTED, "QoS above the server maximum");  // [MQTT-3.2.2-11]
        }
        if (publish.retain() && !settings.retainAvailable()) {
            return new Violation(ReasonCode.RETAIN_NOT_SUPPORTED, "retain is not available");  // [MQTT-3.2.2-14]
        }
        if (properties.payloadFormatIndicator().orElse(0) == 1 && !publish.payload().isUtf8()) {
            return refuseNotUtf8(publish);
        }
        var message = Message.of(publish, topic, properties, now);
        if (publish.retain() && !publish.payload().isEmpty() && !memory.hasRoomFor(publish.payload().length())) {
            memory.retainedRefused();
            if (version.hasProperties() && publish.qos() != QoS.AT_MOST_ONCE) return refuseQuotaExceeded(publish);
            // No reason code to tell it by: delivered to its subscribers as any publish, but not retained.
            message = message.forSubscriber(message.qos(), false, message.properties());
        }
        return switch (publish.qos()) {
            case AT_MOST_ONCE -> new Accepted(message, null);
            case AT_LEAST_ONCE -> new Accepted(message, new PubAck(publish.packetId()));  // [MQTT-4.3.2-2]
            case EXACTLY_ONCE -> receiveExactlyOnce(publish, message, session);
        };
    }

    private Outcome receiveExactlyOnce(Publish publish, Message message, Session session) {
        var pubRec = new PubRec(publish.packetId());
        if (!session.firstReceipt(publish.packetId())) {
            return new AcknowledgedOnly(pubRec);  // [MQTT-4.3.3-9] a resend is acknowledged, not delivered again
        }
        // [MQTT-3.3.4-9] a client must not exceed our Receive Maximum; 3.1.1 clients are never told it.
        if (session.awaitingPubRelCount() > settings.receiveMaximum() && settings.strictReceiveMaximum()
                && version.hasProperties()) {
            // Not routed, so not awaiting PUBREL: the client's resend on its resumed session is a new message.
            session.release(publish.packetId());
            return new Violation(ReasonCode.RECEIVE_MAXIMUM_EXCEEDED, "more QoS 2 PUBLISHes than Receive Maximum");
        }
        return new Accepted(message, pubRec);
    }

    /**
     * A publish the client may not make: to {@code $SYS} ({@link TopicName#isBrokers}), or one the ACLs
     * refuse. Not routed, not retained. MQTT 5 acknowledges with 0x87 Not authorized; QoS 0, and 3.1.1
     * which has no reason codes, get the acknowledgement their QoS needs and the message is dropped, as a
     * server may (3.3.5).
     */
    private Outcome refuseNotAuthorized(Publish publish, String why) {
        int id = publish.packetId();
        boolean reasons = version.hasProperties();
        return switch (publish.qos()) {
            case AT_MOST_ONCE -> new AcknowledgedOnly(null);
            case AT_LEAST_ONCE -> new AcknowledgedOnly(reasons ? new PubAck(id, ReasonCode.NOT_AUTHORIZED, problem(why)) : new PubAck(id));
            case EXACTLY_ONCE -> new AcknowledgedOnly(reasons ? new PubRec(id, ReasonCode.NOT_AUTHORIZED, problem(why)) : new PubRec(id));
        };
    }

    /**
     * A retained message the memory budget has no room for, from an MQTT 5 client at QoS 1 or 2: refused
     * with 0x97 Quota exceeded, neither retained nor delivered, so the publisher knows.
     */
    private Outcome refuseQuotaExceeded(Publish publish) {
        var why = "the broker's memory budget has no room for another retained message";
        return new AcknowledgedOnly(publish.qos() == QoS.AT_LEAST_ONCE
                ? new PubAck(publish.packetId(), ReasonCode.QUOTA_EXCEEDED, problem(why))
                : new PubRec(publish.packetId(), ReasonCode.QUOTA_EXCEEDED, problem(why)));
    }

    /** 3.3.2.3.2: a payload announced as UTF-8 that is not may be refused with 0x99. */
    private Outcome refuseNotUtf8(Publish publish) {
        var why = "payload is not UTF-8";
        return switch (publish.qos()) {
            case AT_MOST_ONCE -> new Violation(ReasonCode.PAYLOAD_FORMAT_INVALID, why);
            case AT_LEAST_ONCE -> new AcknowledgedOnly(new PubAck(publish.packetId(), ReasonCode.PAYLOAD_FORMAT_INVALID, problem(why)));
            case EXACTLY_ONCE -> new AcknowledgedOnly(new PubRec(publish.packetId(), ReasonCode.PAYLOAD_FORMAT_INVALID, problem(why)));
        };
    }

    /** PUBREL for an incoming QoS 2 message: PUBCOMP, with 0x92 in 5.0 if the identifier was not awaiting it. */
    PubComp release(PubRel pubRel, Session session) {
        boolean known = session.release(pubRel.packetId());
        return known || !version.hasProperties()
                ? new PubComp(pubRel.packetId())
                : new PubComp(pubRel.packetId(), ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, Properties.NONE);
    }

    /**
     * A Reason String for an acknowledgement, or none if the client asked for no problem information
     * ([MQTT-3.1.2-29]: then only PUBLISH, CONNACK and DISCONNECT may carry one).
     */
    Properties problem(String reason) {
        return problemInformation ? Properties.builder().set(PropertyId.REASON_STRING, reason).build() : Properties.NONE;
    }
}
