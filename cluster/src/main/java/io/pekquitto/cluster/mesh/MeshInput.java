package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.codec.PropertiesCodec;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Reads what {@link MeshOutput} wrote; a record cut short or malformed throws {@link MeshFormatException}. */
final class MeshInput {
    private final ByteBuffer buffer;

    MeshInput(byte[] bytes) {
        this(bytes, 0);
    }

    /** The bytes from {@code offset} on. */
    MeshInput(byte[] bytes, int offset) {
        this.buffer = ByteBuffer.wrap(bytes, offset, bytes.length - offset);
    }

    int tag() {
        return buffer.get() & 0xFF;
    }

    boolean bool() {
        int value = tag();
        if (value > 1) throw new MeshFormatException("a boolean of " + value);
        return value == 1;
    }

    int uint16() {
        return buffer.getShort() & 0xFFFF;
    }

    int int32() {
        return buffer.getInt();
    }

    /** A list's count: its items follow (a count that lies runs out of bytes, nothing is allocated for it). */
    int count() {
        int count = int32();
        if (count < 0) throw new MeshFormatException("a count of " + count);
        return count;
    }

    long int64() {
        return buffer.getLong();
    }

    String string() {
        var bytes = new byte[buffer.getShort() & 0xFFFF];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The bytes, or null. */
    byte[] bytes() {
        int length = buffer.getInt();
        if (length == -1) return null;
        if (length < 0 || length > buffer.remaining()) throw new MeshFormatException("a length of " + length);
        var bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    Binary binary() {
        var bytes = bytes();
        if (bytes == null) throw new MeshFormatException("no payload");
        return Binary.wrap(bytes);
    }

    /** A message's properties: those a PUBLISH may carry, checked as the MQTT codec checks them. */
    Properties properties() {
        return PropertiesCodec.decode(buffer, PropertyId.Scope.PUBLISH);
    }

    /** What {@link MeshOutput#entry} wrote. */
    SubscriptionEntry entry() {
        int qos = tag();
        if (!QoS.isValid(qos)) throw new MeshFormatException("QoS " + qos);
        var options = new SubscriptionOptions(QoS.of(qos), bool(), bool(), tag());
        return new SubscriptionEntry(options, int32());
    }

    /** Checks that nothing is left over: a longer record than its type is a different format. */
    void end() {
        if (buffer.hasRemaining()) throw new MeshFormatException(buffer.remaining() + " bytes left over");
    }
}
