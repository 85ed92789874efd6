package io.pekquitto.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/** Hand-written byte vectors for the codec tests: built here, never with our encoder. */
final class Vectors {
    static final ProtocolVersion V3_1 = ProtocolVersion.MQTT_3_1;
    static final ProtocolVersion V3 = ProtocolVersion.MQTT_3_1_1;
    static final ProtocolVersion V5 = ProtocolVersion.MQTT_5;
    /** The largest packet the protocol allows: 1 + 4 length bytes + 268,435,455. */
    static final int PROTOCOL_MAXIMUM_PACKET_SIZE = 268_435_460;

    private Vectors() {}

    static byte[] bytes(int... values) {
        var bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) bytes[i] = (byte) values[i];
        return bytes;
    }

    /** Decodes exactly one packet from the vector with the version's rules. */
    static Packet decode(ProtocolVersion version, int... vector) {
        var reader = new PacketReader(1 << 16, version);
        reader.feed(ByteBuffer.wrap(bytes(vector)));
        var packet = reader.poll();
        assertNotNull(packet, "incomplete vector");
        assertNull(reader.poll(), "more than one packet in the vector");
        return packet;
    }

    /** Asserts the vector is refused with the reason code. */
    static MalformedPacketException assertRefused(ReasonCode reason, ProtocolVersion version, int... vector) {
        var reader = new PacketReader(1 << 16, version);
        reader.feed(ByteBuffer.wrap(bytes(vector)));
        var e = assertThrows(MalformedPacketException.class, reader::poll);
        assertEquals(reason, e.reason(), e.getMessage());
        return e;
    }

    static MalformedPacketException assertMalformed(ProtocolVersion version, int... vector) {
        return assertRefused(ReasonCode.MALFORMED_PACKET, version, vector);
    }

    /** The encoder's bytes, to compare with a hand-written vector. */
    static byte[] encoded(Packet packet, ProtocolVersion version) {
        return CodecProperties.toArray(PacketEncoder.encode(packet, version));
    }
}
