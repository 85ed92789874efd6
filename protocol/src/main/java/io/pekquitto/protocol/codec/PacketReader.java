package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ProtocolVersion;
import java.nio.ByteBuffer;

/**
 * Turns the bytes of one connection, split anywhere across reads, into packets. Frames first (the fixed
 * header, checked against the maximum packet size before the body is buffered), then decodes each
 * whole frame with the connection's protocol version, which it learns from CONNECT.
 *
 * <p>The version is taken from the first CONNECT as soon as its protocol name and level have been read,
 * even if the rest of that CONNECT is malformed, so the connection can refuse it with a CONNACK of the
 * right version. A later CONNECT (a protocol error the connection deals with) does not change it.
 * Decoded packets never share the fed buffers: payloads and binary fields are copied out.
 */
public final class PacketReader {
    private final FrameReader frames;
    private ProtocolVersion version;
    private boolean connectSeen;
    private MalformedPacketException failure;

    /** @param maximumPacketSize the largest whole packet (fixed header included) accepted; larger is 0x95 */
    public PacketReader(int maximumPacketSize) {
        this(maximumPacketSize, ProtocolVersion.MQTT_3_1_1);
    }

    /**
     * A reader that applies a known version from the start: for the client side of a connection (tests
     * decoding what the server sends), which never sees a CONNECT.
     */
    public PacketReader(int maximumPacketSize, ProtocolVersion version) {
        this.frames = new FrameReader(maximumPacketSize);
        this.version = version;
    }

    /** Hands over the next bytes read; the reader may keep the buffer until {@link #poll()} returns null. */
    public void feed(ByteBuffer bytes) {
        frames.feed(bytes);
    }

    /**
     * The next whole packet, or null when more bytes are needed.
     *
     * @throws MalformedPacketException on any well-formedness violation; the reader is then failed
     */
    public Packet poll() {
        if (failure != null) throw failure;
        try {
            var frame = frames.next();
            if (frame == null) return null;
            if (!connectSeen && frame.fixedHeader() >> 4 == PacketType.CONNECT.value()) {
                connectSeen = true;
                version = ConnectCodec.readVersion(frame.body());
            }
            return PacketDecoder.decode(frame.fixedHeader(), frame.body(), version);
        } catch (MalformedPacketException e) {
            failure = e;
            throw e;
        }
    }

    /** The version learned from CONNECT; MQTT_3_1_1 rules until a CONNECT has been read. */
    public ProtocolVersion version() {
        return version;
    }

    /** Whether bytes of an unfinished packet are buffered (a parked connection must have none). */
    public boolean hasPartialPacket() {
        return frames.hasPartialFrame();
    }
}
