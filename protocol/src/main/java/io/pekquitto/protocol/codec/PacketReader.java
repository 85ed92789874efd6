package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import java.nio.ByteBuffer;

/**
 * Turns the bytes of one connection, split anywhere across reads, into packets. Frames first (the fixed
 * header, checked against the maximum packet size before the body is buffered), then decodes each
 * whole frame with the connection's protocol version, which it learns from CONNECT.
 */
public final class PacketReader {
    /** @param maximumPacketSize the largest whole packet (fixed header included) accepted; larger is 0x95 */
    public PacketReader(int maximumPacketSize) {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /** Hands over the next bytes read; the reader may keep the buffer until {@link #poll()} returns null. */
    public void feed(ByteBuffer bytes) {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /**
     * The next whole packet, or null when more bytes are needed.
     *
     * @throws MalformedPacketException on any well-formedness violation; the reader is then failed
     */
    public Packet poll() {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /** The version learned from CONNECT; MQTT_3_1_1 rules until a CONNECT has been read. */
    public ProtocolVersion version() {
        throw new UnsupportedOperationException("codec not written yet");
    }

    /** Whether bytes of an unfinished packet are buffered (a parked connection must have none). */
    public boolean hasPartialPacket() {
        throw new UnsupportedOperationException("codec not written yet");
    }
}
