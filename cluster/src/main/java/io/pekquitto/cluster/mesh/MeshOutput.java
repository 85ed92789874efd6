package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.codec.PropertiesCodec;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of one mesh message as they are written (docs/cluster.md, The mesh's messages on the wire):
 * big-endian integers, strings as an unsigned 16-bit length and UTF-8 (as MQTT writes them, 1.5.4),
 * byte arrays as a 32-bit length (-1 for none) and the bytes, properties in MQTT 5's own encoding.
 */
final class MeshOutput {
    /** The longest string MQTT has: a topic, a filter or a client id is never longer. */
    static final int MAX_STRING = 0xFFFF;

    private ByteBuffer buffer = ByteBuffer.allocate(256);

    private ByteBuffer room(int bytes) {
        if (buffer.remaining() < bytes) {
            int capacity = Math.max(buffer.capacity() * 2, buffer.position() + bytes);
            buffer = ByteBuffer.wrap(Arrays.copyOf(buffer.array(), capacity)).position(buffer.position());
        }
        return buffer;
    }

    MeshOutput tag(int tag) {
        room(1).put((byte) tag);
        return this;
    }

    MeshOutput bool(boolean value) {
        return tag(value ? 1 : 0);
    }

    /** An unsigned 16-bit integer: a packet identifier. */
    MeshOutput uint16(int value) {
        if (value < 0 || value > 0xFFFF) throw new IllegalArgumentException("not an unsigned 16-bit integer: " + value);
        room(Short.BYTES).putShort((short) value);
        return this;
    }

    MeshOutput int32(int value) {
        room(Integer.BYTES).putInt(value);
        return this;
    }

    MeshOutput int64(long value) {
        room(Long.BYTES).putLong(value);
        return this;
    }

    MeshOutput string(String value) {
        var bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING) {
            throw new IllegalArgumentException("a string of " + bytes.length + " bytes, longer than MQTT allows: " + value.substring(0, 40));
        }
        room(Short.BYTES + bytes.length).putShort((short) bytes.length).put(bytes);
        return this;
    }

    /** {@code bytes}, or null. */
    MeshOutput bytes(byte[] bytes) {
        if (bytes == null) return int32(-1);
        room(Integer.BYTES + bytes.length).putInt(bytes.length).put(bytes);
        return this;
    }

    MeshOutput binary(Binary binary) {
        room(Integer.BYTES + binary.length()).putInt(binary.length());
        binary.writeTo(buffer);
        return this;
    }

    MeshOutput properties(Properties properties) {
        PropertiesCodec.encode(room(PropertiesCodec.encodedSize(properties)), properties);
        return this;
    }

    /** A subscription's options (QoS, No Local, Retain As Published, Retain Handling) and its Subscription Identifier. */
    MeshOutput entry(SubscriptionEntry entry) {
        var options = entry.options();
        return tag(options.maximumQos().value()).bool(options.noLocal()).bool(options.retainAsPublished())
                .tag(options.retainHandling()).int32(entry.subscriptionIdentifier());
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buffer.array(), buffer.position());
    }
}
