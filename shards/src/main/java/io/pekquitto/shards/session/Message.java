package io.pekquitto.shards.session;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.Objects;

/**
 * An Application Message inside the broker: what a PUBLISH carries, without the packet identifier and
 * DUP flag that belong to one hop. The shard routes, retains and queues these; a connection turns one
 * into a PUBLISH with a packet identifier of its own. For a delivery, {@code qos} is already the
 * granted QoS and {@code retain} the flag to send; {@code properties} hold the Subscription Identifiers,
 * and {@code sharedFilter} names the shared subscription ({@code $share/g/f}) it came through, or is
 * empty: a message of a shared subscription is given to another member if its session ends first.
 */
public record Message(String topic, Binary payload, QoS qos, boolean retain, Properties properties, String sharedFilter) {
    public Message {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(qos, "qos");
        Objects.requireNonNull(properties, "properties");
        Objects.requireNonNull(sharedFilter, "sharedFilter");
    }

    /** A message not delivered through a shared subscription. */
    public Message(String topic, Binary payload, QoS qos, boolean retain, Properties properties) {
        this(topic, payload, qos, retain, properties, "");
    }

    /** The message a client published; the caller has already resolved any Topic Alias into the topic. */
    public static Message of(Publish publish, String topic, Properties properties) {
        return new Message(topic, publish.payload(), publish.qos(), publish.retain(), properties);
    }

    /** The PUBLISH that delivers this message to one client. */
    public Publish toPublish(int packetId, boolean dup) {
        return new Publish(topic, payload, qos, retain, dup, packetId, properties);
    }

    public Message with(QoS newQos, boolean newRetain, Properties newProperties) {
        return new Message(topic, payload, newQos, newRetain, newProperties, sharedFilter);
    }

    public Message viaShared(String newSharedFilter) {
        return new Message(topic, payload, qos, retain, properties, newSharedFilter);
    }

    public boolean isShared() {
        return !sharedFilter.isEmpty();
    }

    /** Bytes this message holds, for queue limits: payload and topic, roughly. */
    public int weight() {
        return payload.length() + topic.length() + 32;
    }
}
