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
 * a body split across reads is copied, into a {@link PartialBody} that grows with the bytes that really
 * arrive, never with the Remaining Length a client announces.
 *
 * <p>States: {@code READING_FIXED_HEADER} (possibly part-way), {@code READING_BODY} (the header is
 * complete; part of the body may be buffered), {@code FAILED} (a violation was thrown; every later call
 * throws it again).
 */
final class FrameReader {
    enum State { READING_FIXED_HEADER, READING_BODY, FAILED }

    /**
     * One whole frame; {@code body} holds exactly the Remaining Length bytes. {@code owned}: the body is an
     * array of its own, joined here from a body split across reads, that nothing else holds or writes (its
     * payload may be kept without a copy); else a slice of the fed bytes.
     */
    record Frame(int fixedHeader, ByteBuffer body, boolean owned) {}

    /** A rule on packet types that depends on the connection, applied at a frame's first byte. */
    interface TypeCheck {
        /** @throws MalformedPacketException if this type may not come now */
        void check(PacketType type);
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final int NO_HEADER = -1;

    private int maximumPacketSize;
    private final TypeCheck typeCheck;
    private State state = State.READING_FIXED_HEADER;
    private MalformedPacketException failure;
    private ByteBuffer input = EMPTY;
    /** Whether {@code input} is our copy (a join in {@link #feed}), so it counts as held. */
    private boolean inputJoined;

    // Fixed header progress.
    private int fixedHeader = NO_HEADER;
    private int remainingLength;
    private int lengthBytes;
    private boolean lengthComplete;

    // Body progress, in READING_BODY only: null until body bytes arrive without the whole body.
    private PartialBody partialBody;

    FrameReader(int maximumPacketSize) {
        this(maximumPacketSize, type -> {});
    }

    FrameReader(int maximumPacketSize, TypeCheck typeCheck) {
        if (maximumPacketSize < 2) throw new IllegalArgumentException("maximum packet size " + maximumPacketSize);
        this.maximumPacketSize = maximumPacketSize;
        this.typeCheck = typeCheck;
    }

    State state() { return state; }

    /** From the next frame on, the largest whole frame accepted. */
    void maximumPacketSize(int maximum) {
        if (maximum < 2) throw new IllegalArgumentException("maximum packet size " + maximum);
        this.maximumPacketSize = maximum;
    }

    /** Bytes allocated for unfinished input (capacity, not content): what a client can make us hold. */
    int bytesHeld() {
        return (partialBody == null ? 0 : partialBody.capacity()) + (inputJoined ? input.capacity() : 0);
    }

    /**
     * Hands over the next bytes; they are read in place until {@link #next()} returns null. Bytes still
     * unread from an earlier feed are kept in front of them (a copy of exactly the unread bytes, off the
     * normal path).
     */
    void feed(ByteBuffer bytes) {
        if (state == State.FAILED || !bytes.hasRemaining()) return;
        if (!input.hasRemaining()) {
            input = bytes;
            inputJoined = false;
        } else {
            var joined = ByteBuffer.allocate(input.remaining() + bytes.remaining());
            joined.put(input).put(bytes).flip();
            input = joined;
            inputJoined = true;
        }
    }

    /** Whether bytes of an unfinished frame have been taken in. */
    boolean hasPartialFrame() {
        return fixedHeader != NO_HEADER || input.hasRemaining();
    }

    /**
     * The next whole frame, or null when the fed bytes are used up.
     *
     * @throws MalformedPacketException for a first byte {@link FixedHeader} or the type check refuses, a
     *     Remaining Length over four bytes or not minimally encoded, and PACKET_TOO_LARGE for a frame over
     *     the maximum
     */
    Frame next() {
        if (state == State.FAILED) throw failure;
        try {
            var frame = state == State.READING_FIXED_HEADER ? readFixedHeader() : readBody();
            if (frame == null) releaseInput();  // all of it was taken
            return frame;
        } catch (MalformedPacketException e) {
            state = State.FAILED;
            failure = e;
            releaseInput();
            partialBody = null;
            throw e;
        }
    }

    /** Drops the fed buffer, so neither the caller's buffer nor our join outlives its bytes. */
    private void releaseInput() {
        input = EMPTY;
        inputJoined = false;
    }

    private Frame readFixedHeader() {
        while (!lengthComplete) {
            if (!input.hasRemaining()) return null;
            int b = input.get() & 0xFF;
            if (fixedHeader == NO_HEADER) {
                // Fail at the first byte rather than after waiting for a body.
                typeCheck.check(FixedHeader.check(b));
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
        state = State.READING_BODY;
        return readBody();
    }

    private Frame readBody() {
        if (partialBody == null) {
            if (input.remaining() >= remainingLength) {
                var body = input.slice(input.position(), remainingLength);  // no copy
                input.position(input.position() + remainingLength);
                return completed(body, false);
            }
            if (!input.hasRemaining()) return null;
            partialBody = new PartialBody(remainingLength, fixedHeader >> 4 == PacketType.PUBLISH.value());
        }
        var body = partialBody.take(input);
        if (body == null) return null;
        partialBody = null;
        return completed(body, true);
    }

    private Frame completed(ByteBuffer body, boolean owned) {
        var frame = new Frame(fixedHeader, body, owned);
        state = State.READING_FIXED_HEADER;
        fixedHeader = NO_HEADER;
        remainingLength = 0;
        lengthBytes = 0;
        lengthComplete = false;
        return frame;
    }
}
