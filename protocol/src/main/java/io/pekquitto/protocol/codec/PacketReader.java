package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

/**
 * Turns the bytes of one connection, split anywhere across reads, into packets. Frames first (the fixed
 * header, checked against the maximum packet size before the body is buffered), then decodes each
 * whole frame with the connection's protocol version, which it learns from CONNECT.
 *
 * <p>The version is taken from the first CONNECT as soon as its protocol name and level have been read,
 * even if the rest of that CONNECT is malformed, so the connection can refuse it with a CONNACK of the
 * right version. A later CONNECT (a protocol error the connection deals with) does not change it.
 * Decoded packets never share the fed buffers: payloads and binary fields are copied out.
 *
 * <p>Packet types are judged at a frame's first byte, before any body is waited for: AUTH is reserved
 * unless the version is 5.0, and a reader {@link #forServer for the server side} also refuses what only
 * servers send and anything before CONNECT.
 */
public final class PacketReader {
    /** The types Table 2-1 (2.1.2) has flow from server to client only. */
    private static final Set<PacketType> SENT_BY_SERVERS_ONLY =
            EnumSet.of(PacketType.CONNACK, PacketType.SUBACK, PacketType.UNSUBACK, PacketType.PINGRESP);

    private final FrameReader frames;
    private final int maximumPacketSize;
    private final boolean serverSide;
    private ProtocolVersion version;
    private boolean connectSeen;
    private MalformedPacketException failure;

    /**
     * A reader that learns the version from a CONNECT but judges no packet's direction or order; the
     * server side of a connection wants {@link #forServer}.
     *
     * @param maximumPacketSize the largest whole packet (fixed header included) accepted; larger is 0x95
     */
    public PacketReader(int maximumPacketSize) {
        this(maximumPacketSize, ProtocolVersion.MQTT_3_1_1);
    }

    /**
     * A reader that applies a known version from the start: for the client side of a connection (tests
     * decoding what the server sends), which never sees a CONNECT.
     */
    public PacketReader(int maximumPacketSize, ProtocolVersion version) {
        this(maximumPacketSize, version, false);
    }

    private PacketReader(int maximumPacketSize, ProtocolVersion version, boolean serverSide) {
        this.frames = new FrameReader(maximumPacketSize, this::checkType);
        this.maximumPacketSize = maximumPacketSize;
        this.version = version;
        this.serverSide = serverSide;
    }

    /**
     * A reader for the server side of a connection: the first packet must be CONNECT ([MQTT-3.1.0-1])
     * and no other may be ([MQTT-3.1.0-2]), and CONNACK, SUBACK, UNSUBACK and PINGRESP, which only
     * servers send, are refused; all with PROTOCOL_ERROR at the frame's first byte, so a client cannot
     * make the server wait for their body. A CONNECT larger than {@code maximumConnectSize} is refused
     * with PACKET_TOO_LARGE as soon as its Remaining Length is read: before authentication, a client
     * cannot make the server buffer more than that.
     *
     * @param maximumPacketSize  the largest whole packet (fixed header included) accepted; larger is 0x95
     * @param maximumConnectSize the largest CONNECT accepted, at most {@code maximumPacketSize}
     */
    public static PacketReader forServer(int maximumPacketSize, int maximumConnectSize) {
        var reader = new PacketReader(maximumPacketSize, ProtocolVersion.MQTT_3_1_1, true);
        reader.frames.maximumPacketSize(Math.min(maximumPacketSize, maximumConnectSize));
        return reader;
    }

    /**
     * A reader for the server side of a connection whose CONNECT was read by another reader: a parked
     * connection that resumes. A CONNECT is refused as a second one ([MQTT-3.1.0-2]).
     */
    public static PacketReader forServerAfterConnect(int maximumPacketSize, ProtocolVersion version) {
        var reader = new PacketReader(maximumPacketSize, version, true);
        reader.connectSeen = true;
        return reader;
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
                frames.maximumPacketSize(maximumPacketSize);  // past the CONNECT limit, if there was one
                version = ConnectCodec.readVersion(frame.body());
            }
            return PacketDecoder.decode(frame.fixedHeader(), frame.body(), frame.owned(), version);
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

    /** Bytes allocated for an unfinished packet (capacity, not content): what a client makes the reader hold. */
    public int bytesHeld() {
        return frames.bytesHeld();
    }

    /** Runs at a frame's first byte; the version is known by then, as a CONNECT frame is read whole first. */
    private void checkType(PacketType type) {
        if (serverSide && !connectSeen && type != PacketType.CONNECT) {
            throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, type + " before CONNECT [MQTT-3.1.0-1]");
        }
        if (serverSide && connectSeen && type == PacketType.CONNECT) {
            throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, "a second CONNECT [MQTT-3.1.0-2]");
        }
        if (serverSide && SENT_BY_SERVERS_ONLY.contains(type)) {
            throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, type + " is sent by servers only (2.1.2)");
        }
        if (type == PacketType.AUTH && !version.hasProperties()) {
            // Type 15 is reserved in 3.1.1 (2.2.1); AuthCodec says the same once the body is in.
            throw new MalformedPacketException("AUTH is not a packet of " + version);
        }
    }
}
