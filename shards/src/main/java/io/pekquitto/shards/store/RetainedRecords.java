package io.pekquitto.shards.store;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.session.Message;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A retained message as the store keeps it: keyed by its topic, the value the wall-clock time it was
 * stored at and the message as an MQTT 5 PUBLISH (our own codec, so every property survives as it
 * was sent). The broker's nanosecond clock does not survive a restart, the wall clock does: the time a
 * message spent in the store while the broker was down counts against its Message Expiry Interval.
 */
final class RetainedRecords {
    /** The largest packet MQTT allows: a stored message is one the broker accepted. */
    private static final int MAX_PACKET = 268_435_455;

    private RetainedRecords() {}

    static byte[] key(String topic) {
        return topic.getBytes(StandardCharsets.UTF_8);
    }

    /** The record of {@code message}, stored at {@code now} (nanosecond clock) and {@code wallMillis}. */
    static byte[] encode(Message message, long now, long wallMillis) {
        var publish = message.toPublish(message.qos().value() == 0 ? 0 : 1, false, now);
        var packet = PacketEncoder.encode(publish, ProtocolVersion.MQTT_5);
        var record = ByteBuffer.allocate(Long.BYTES + packet.remaining());
        return record.putLong(wallMillis).put(packet).array();
    }

    /**
     * The message of a record, as received again at {@code now}; empty if it expired while stored.
     *
     * @throws StoreException if the record cannot be read (the store is damaged)
     */
    static Optional<Message> decode(byte[] record, long now, long wallMillis) {
        var buffer = ByteBuffer.wrap(record);
        long storedAt = buffer.getLong();
        var reader = new PacketReader(MAX_PACKET, ProtocolVersion.MQTT_5);
        Publish publish;
        try {
            reader.feed(buffer);
            publish = (Publish) reader.poll();
        } catch (MalformedPacketException | ClassCastException e) {
            throw new StoreException("a retained message in the store cannot be read: " + e.getMessage(), e);
        }
        if (publish == null) throw new StoreException("a retained message in the store is cut short", null);
        var properties = publish.properties();
        var interval = properties.messageExpiryInterval();
        if (interval.isPresent()) {
            long left = interval.get() - Math.max(0, wallMillis - storedAt) / 1000;
            if (left <= 0) return Optional.empty();
            properties = properties.toBuilder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, left).build();
        }
        return Optional.of(Message.received(publish.topic(), publish.payload(), publish.qos(), true, properties, now));
    }
}
