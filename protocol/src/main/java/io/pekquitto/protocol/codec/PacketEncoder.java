package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import java.nio.ByteBuffer;

/** Encodes packets for a connection's protocol version. */
public final class PacketEncoder {
    private PacketEncoder() {}

    /** The number of bytes the whole packet takes on the wire, fixed header included. */
    public static int encodedSize(Packet packet, ProtocolVersion version) {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /** A new buffer, ready to read, holding exactly the encoded packet. */
    public static ByteBuffer encode(Packet packet, ProtocolVersion version) {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /** Writes the encoded packet at the target's position. */
    public static void encode(Packet packet, ProtocolVersion version, ByteBuffer target) {
        throw new UnsupportedOperationException("codec not written yet");
    }
}
