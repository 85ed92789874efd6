package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;

/**
 * An Application Message between nodes: topic, payload, QoS, retain, its MQTT 5 properties (in MQTT's
 * own encoding, so every property travels as it was published, Subscription Identifiers included), the
 * shared subscription it came through, and its two times.
 *
 * <p>A message's times are on the sending JVM's nanosecond clock ({@code System.nanoTime()}), which
 * means nothing on another JVM. So the sender writes the message's age ({@code now - receivedAt}) and its
 * expiry as an offset from its reception, and the receiver rebuilds both from its own clock
 * ({@code receivedAt = now - age}): the Message Expiry Interval goes on counting from when the first
 * node received the message, all but the time on the wire (so the nodes' clocks need not agree).
 */
final class MessageCodec {
    private MessageCodec() {}

    /** Writes {@code message} as seen at {@code now}, on this JVM's nanosecond clock. */
    static void write(MeshOutput out, Message message, long now) {
        out.string(message.topic()).binary(message.payload()).tag(message.qos().value()).bool(message.retain())
                .properties(message.properties()).string(message.sharedFilter())
                .int64(now - message.receivedAt());
        boolean expires = message.expiryDeadline() != Message.NEVER;
        out.bool(expires);
        if (expires) out.int64(message.expiryDeadline() - message.receivedAt());
    }

    /** Reads a message arriving at {@code now}, on this JVM's nanosecond clock. */
    static Message read(MeshInput in, long now) {
        var topic = in.string();
        var payload = in.binary();
        int qos = in.tag();
        if (!QoS.isValid(qos)) throw new MeshFormatException("QoS " + qos);
        boolean retain = in.bool();
        var properties = in.properties();
        var sharedFilter = in.string();
        long receivedAt = now - in.int64();
        long deadline = in.bool() ? receivedAt + in.int64() : Message.NEVER;
        return new Message(topic, payload, QoS.of(qos), retain, properties, sharedFilter, deadline, receivedAt);
    }
}
