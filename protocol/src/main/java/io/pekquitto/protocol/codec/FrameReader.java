package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * Cuts a connection's byte stream into frames: a fixed header (2.1.1) and Remaining Length bytes. This
 * is the codec's only partial state, so "bytes split at any boundary" is a property of this class alone.
 *
 * <p>The fixed header is parsed byte by byte as it arrives, so nothing of it is buffered. Once the
 * Remaining Length is known the whole frame size is checked against the maximum before any of the body
 * is kept (rumqttd and the HiveMQ client do the same: a rogue client must not make us allocate). A
 * frame that lies entirely inside the fed buffer is handed over as a slice of it, without a copy; only
 * a body split across reads is copied, into a buffer of exactly its size.
 *
 * <p>States: {@code READING_FIXED_HEADER} (possibly part-way), {@code READING_BODY} (a partial body is
 * buffered), {@code FAILED} (a violation was thrown; every later call throws it again).
 */
final class FrameReader {
    enum State { READING_FIXED_HEADER, READING_BODY, FAILED }

    /** One whole frame; {@code body} holds exactly the Remaining Length bytes. */
    record Frame(int fixedHeader, ByteBuffer body) {}

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final int NO_HEADER = -1;

    private final int maximumPacketSize;
    private State state = State.READING_FIXED_HEADER;
    private MalformedPacketException failure;
    private ByteBuffer input = EMPTY;

    // Fixed header progress.
    private int fixedHeader = NO_HEADER;
    private int remainingLength;
    private int lengthBytes;
    private boolean lengthComplete;

    // Body progress, in READING_BODY only.
    private ByteBuffer partialBody;

    FrameReader(int maximumPacketSize) {
        if (maximumPacketSize < 2) throw new IllegalArgumentException("maximum packet size " + maximumPacketSize);
        this.maximumPacketSize = maximumPacketSize;
    }

    State state() { return state; }

    /**
     * Hands over the next bytes; they are read in place until {@link #next()} returns null. Bytes still
     * unread from an earlier feed are kept in front of them (a copy, off the normal path).
     */
    void feed(ByteBuffer bytes) {
        if (state == State.FAILED) return;
        if (!input.hasRemaining()) {
            input = bytes;
        } else {
            var joined = ByteBuffer.allocate(input.remaining() + bytes.remaining());
            joined.put(input).put(bytes).flip();
            input = joined;
        }
    }

    /** Whether bytes of an unfinished frame have been taken in. */
    boolean hasPartialFrame() {
        return fixedHeader != NO_HEADER || input.hasRemaining();
    }

    /**
     * The next whole frame, or null when the fed bytes are used up.
     *
     * @throws MalformedPacketException for packet type 0, a Remaining Length over four bytes or not
     *     minimally encoded, and PACKET_TOO_LARGE for a frame over the maximum
     */
    Frame next() {
        if (state == State.FAILED) throw failure;
        try {
            return state == State.READING_FIXED_HEADER ? readFixedHeader() : readBody();
        } catch (MalformedPacketException e) {
            state = State.FAILED;
            failure = e;
            input = EMPTY;
            partialBody = null;
            throw e;
        }
    }

    private Frame readFixedHeader() {
        while (!lengthComplete) {
            if (!input.hasRemaining()) return null;
            int b = input.get() & 0xFF;
            if (fixedHeader == NO_HEADER) {
                // Fail at the first byte rather than after buffering a body.
                if (PacketType.ofNibble(b >> 4) == null) throw new MalformedPacketException("packet type 0 is reserved (2.1.2)");
                fixedHeader = b;
                continue;
            }
            remainingLength |= (b & 0x7F) << (7 * lengthBytes);
            lengthBytes++;
            if ((b & 0x80) == 0) {
                if (lengthBytes > 1 && b == 0) {
                    throw new MalformedPacketException("Remaining Length not in the minimum number of bytes [MQTT-1.5.5-1]");
                }
                lengthComplete = true;
            } else if (lengthBytes == 4) {
                throw new MalformedPacketException("Remaining Length longer than four bytes (2.1.4)");
            }
        }
        long packetSize = 1L + lengthBytes + remainingLength;
        if (packetSize > maximumPacketSize) {
            throw new MalformedPacketException(ReasonCode.PACKET_TOO_LARGE,
                    "packet of " + packetSize + " bytes, larger than the maximum " + maximumPacketSize);
        }
        if (input.remaining() >= remainingLength) {
            var body = input.slice(input.position(), remainingLength);
            input.position(input.position() + remainingLength);
            return completed(body);
        }
        partialBody = ByteBuffer.allocate(remainingLength);
        partialBody.put(input);
        state = State.READING_BODY;
        return null;
    }

    private Frame readBody() {
        int take = Math.min(input.remaining(), partialBody.remaining());
        partialBody.put(partialBody.position(), input, input.position(), take);
        partialBody.position(partialBody.position() + take);
        input.position(input.position() + take);
        if (partialBody.hasRemaining()) return null;
        var body = partialBody.flip();
        partialBody = null;
        state = State.READING_FIXED_HEADER;
        return completed(body);
    }

    private Frame completed(ByteBuffer body) {
        var frame = new Frame(fixedHeader, body);
        fixedHeader = NO_HEADER;
        remainingLength = 0;
        lengthBytes = 0;
        lengthComplete = false;
        return frame;
    }
}
