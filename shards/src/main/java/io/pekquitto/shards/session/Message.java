package io.pekquitto.shards.session;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
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
 *
 * <p>{@code expiryDeadline} is the time, on the broker's nanosecond clock, at which a message with a
 * Message Expiry Interval expires, or {@link #NEVER} (3.3.2.3.3). {@code receivedAt} is when the broker
 * received it (or read it back from the store), for the publish-to-delivery latency. Times are passed
 * in, never read here, so that tests control them.
 */
public record Message(String topic, Binary payload, QoS qos, boolean retain, Properties properties, String sharedFilter,
                      long expiryDeadline, long receivedAt) {
    /** The deadline of a message without a Message Expiry Interval. */
    public static final long NEVER = Long.MAX_VALUE;

    public Message {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(qos, "qos");
        Objects.requireNonNull(properties, "properties");
        Objects.requireNonNull(sharedFilter, "sharedFilter");
    }

    /** A message received at {@code now}, with no shared subscription; its expiry read from its properties. */
    public static Message received(String topic, Binary payload, QoS qos, boolean retain, Properties properties, long now) {
        return new Message(topic, payload, qos, retain, properties, "", deadlineOf(properties, now), now);
    }

    /** The message a client published at {@code now}; any Topic Alias is already resolved into the topic. */
    public static Message of(Publish publish, String topic, Properties properties, long now) {
        return received(topic, publish.payload(), publish.qos(), publish.retain(), properties, now);
    }

    private static long deadlineOf(Properties properties, long now) {
        var interval = properties.messageExpiryInterval();
        return interval.isEmpty() ? NEVER : now + interval.get() * 1_000_000_000L;
    }

    /** Whether the Message Expiry Interval has passed: it must not start onward delivery ([MQTT-3.3.2-5]). */
    public boolean isExpired(long now) {
        return expiryDeadline != NEVER && now - expiryDeadline >= 0;
    }

    /**
     * The PUBLISH that delivers this message to one client at {@code now}. Its Message Expiry Interval
     * is what is left of the received one ([MQTT-3.3.2-6]), rounded up so that it is never sent as 0
     * while still alive.
     */
    public Publish toPublish(int packetId, boolean dup, long now) {
        var sent = properties;
        if (expiryDeadline != NEVER) {
            long left = Math.max(1, (expiryDeadline - now + 999_999_999L) / 1_000_000_000L);
            sent = properties.toBuilder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, left).build();
        }
        return new Publish(topic, payload, qos, retain, dup, packetId, sent);
    }

    /** The message as one subscriber gets it; this very message when nothing differs (no copy per subscriber). */
    public Message forSubscriber(QoS newQos, boolean newRetain, Properties newProperties) {
        if (newQos == qos && newRetain == retain && newProperties == properties) return this;
        return new Message(topic, payload, newQos, newRetain, newProperties, sharedFilter, expiryDeadline, receivedAt);
    }

    /** The message marked as delivered through a shared subscription, or unmarked with "". */
    public Message viaShared(String newSharedFilter) {
        if (newSharedFilter.equals(sharedFilter)) return this;
        return new Message(topic, payload, qos, retain, properties, newSharedFilter, expiryDeadline, receivedAt);
    }

    public boolean isShared() {
        return !sharedFilter.isEmpty();
    }
}
