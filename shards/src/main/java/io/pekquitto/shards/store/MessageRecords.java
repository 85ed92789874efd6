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
 * A message as the store keeps it (retained, queued for a session, a will): the wall-clock time it was
 * stored at, the shared subscription it came through, and the message as an MQTT 5 PUBLISH (our own
 * codec, so every property survives as it was sent, Subscription Identifiers included). The broker's
 * nanosecond clock does not survive a restart, the wall clock does: the time a message spent in the
 * store while the broker was down counts against its Message Expiry Interval.
 */
final class MessageRecords {
    /** The largest packet MQTT allows: a stored message is one the broker accepted. */
    private static final int MAX_PACKET = 268_435_455;

    private MessageRecords() {}

    /** The record of {@code message}, stored at {@code now} (nanosecond clock) and {@code wallMillis}. */
    static byte[] encode(Message message, long now, long wallMillis) {
        var publish = message.toPublish(message.qos().value() == 0 ? 0 : 1, false, now);
        var packet = PacketEncoder.encode(publish, ProtocolVersion.MQTT_5);
        var shared = message.sharedFilter().getBytes(StandardCharsets.UTF_8);
        var record = ByteBuffer.allocate(Long.BYTES + Short.BYTES + shared.length + packet.remaining());
        return record.putLong(wallMillis).putShort((short) shared.length).put(shared).put(packet).array();
    }

    /** The wall-clock time a record was stored at. */
    static long storedAt(byte[] record) {
        return ByteBuffer.wrap(record).getLong();
    }

    /**
     * The message of a record, as received again at {@code now}; empty if it expired while stored.
     *
     * @throws StoreException if the record cannot be read (the store is damaged)
     */
    static Optional<Message> decode(byte[] record, long now, long wallMillis) {
        var message = read(record, now, wallMillis);
        return message.isExpired(now) ? Optional.empty() : Optional.of(message);
    }

    /**
     * The message of a record, as received again at {@code now}, expired or not: the time it spent in
     * the store counts against its Message Expiry Interval.
     *
     * @throws StoreException if the record cannot be read (the store is damaged)
     */
    static Message read(byte[] record, long now, long wallMillis) {
        var buffer = ByteBuffer.wrap(record);
        Publish publish;
        long storedAt;
        String sharedFilter;
        try {
            storedAt = buffer.getLong();
            var shared = new byte[buffer.getShort() & 0xFFFF];
            buffer.get(shared);
            sharedFilter = new String(shared, StandardCharsets.UTF_8);
            var reader = new PacketReader(MAX_PACKET, ProtocolVersion.MQTT_5);
            reader.feed(buffer);
            publish = (Publish) reader.poll();
        } catch (MalformedPacketException | ClassCastException | java.nio.BufferUnderflowException e) {
            throw new StoreException("a message in the store cannot be read: " + e, e);
        }
        if (publish == null) throw new StoreException("a message in the store is cut short", null);
        var properties = publish.properties();
        var interval = properties.messageExpiryInterval();
        long deadline = Message.NEVER;
        if (interval.isPresent()) {
            long left = interval.get() - Math.max(0, wallMillis - storedAt) / 1000;
            deadline = now + left * 1_000_000_000L;  // in the past if it expired while stored
            properties = properties.toBuilder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, Math.max(0, left)).build();
        }
        return new Message(publish.topic(), publish.payload(), publish.qos(), publish.retain(), properties, sharedFilter,
                deadline, now);
    }
}
