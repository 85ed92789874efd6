package io.pekquitto.shards.store;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A persistent session in SESSIONS: a format version, the Session Expiry Interval, the wall-clock time
 * it went offline ({@link #CONNECTED} while a connection held it), and its subscriptions with their
 * options (the SUBSCRIBE options byte, 3.8.3.1) and Subscription Identifiers. Shared subscriptions
 * are subscriptions to {@code $share/...} filters, so the group memberships come back with them.
 */
final class SessionRecords {
    static final long CONNECTED = Long.MIN_VALUE;
    private static final byte VERSION = 1;

    /** A decoded record; {@code offlineSince} is wall-clock milliseconds or {@link #CONNECTED}. */
    record Stored(long expiryInterval, long offlineSince, Map<String, SubscriptionEntry> subscriptions) {}

    private SessionRecords() {}

    static byte[] encode(long expiryInterval, long offlineSinceWall, Map<String, SubscriptionEntry> subscriptions) {
        var filters = new byte[subscriptions.size()][];
        int size = 1 + Long.BYTES * 2 + Integer.BYTES;
        int i = 0;
        for (var filter : subscriptions.keySet()) {
            filters[i] = filter.getBytes(StandardCharsets.UTF_8);
            size += Short.BYTES + filters[i++].length + 1 + Integer.BYTES;
        }
        var record = ByteBuffer.allocate(size).put(VERSION).putLong(expiryInterval).putLong(offlineSinceWall)
                .putInt(subscriptions.size());
        i = 0;
        for (var entry : subscriptions.values()) {
            record.putShort((short) filters[i].length).put(filters[i++]).put(optionsByte(entry.options()))
                    .putInt(entry.subscriptionIdentifier());
        }
        return record.array();
    }

    /** @throws StoreException if the record cannot be read (the store is damaged, or from a later version) */
    static Stored decode(byte[] record) {
        try {
            var buffer = ByteBuffer.wrap(record);
            byte version = buffer.get();
            if (version != VERSION) throw new StoreException("a session in the store has format " + version + ", not " + VERSION, null);
            long expiry = buffer.getLong();
            long offlineSince = buffer.getLong();
            int count = buffer.getInt();
            var subscriptions = new HashMap<String, SubscriptionEntry>();
            for (int i = 0; i < count; i++) {
                var filter = new byte[buffer.getShort() & 0xFFFF];
                buffer.get(filter);
                var options = options(buffer.get());
                subscriptions.put(new String(filter, StandardCharsets.UTF_8), new SubscriptionEntry(options, buffer.getInt()));
            }
            return new Stored(expiry, offlineSince, subscriptions);
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new StoreException("a session in the store cannot be read: " + e, e);
        }
    }

    static byte optionsByte(SubscriptionOptions options) {
        return (byte) (options.maximumQos().value() | (options.noLocal() ? 0x04 : 0) | (options.retainAsPublished() ? 0x08 : 0)
                | options.retainHandling() << 4);
    }

    static SubscriptionOptions options(byte value) {
        return new SubscriptionOptions(QoS.of(value & 0x03), (value & 0x04) != 0, (value & 0x08) != 0, (value >> 4) & 0x03);
    }
}
