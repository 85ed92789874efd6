package io.pekquitto.protocol.codec;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of a frame's body that has arrived so far, when the body is split across reads. Memory follows
 * what was received, never what the Remaining Length announced: a client can announce 256 MiB and send
 * ten bytes, so nothing is allocated for bytes that have not come.
 *
 * <p>The bytes are kept in segments sized by what arrives (at least {@link #MIN_SEGMENT}, so a client
 * sending a byte at a time does not cost an array per byte), and joined into one buffer of exactly the
 * Remaining Length only when the last byte arrives; that final piece is copied straight from the input.
 * A single growing array would either over-allocate (doubling holds up to twice what arrived) or copy
 * quadratically (growing to fit); segments hold at most {@code MIN_SEGMENT - 1} bytes of slack and copy
 * each byte at most twice. Except for a PUBLISH half of whose body or more comes in its first read (a
 * large payload split by the socket): it gets one array of exactly the body's size at once, at most twice
 * what arrived, and each byte is copied once, the array becoming the body (the payload stays in it).
 */
final class PartialBody {
    /** The smallest segment: the most slack a partial body holds beyond what arrived. */
    static final int MIN_SEGMENT = 64;

    private final int length;
    /** Whether the body gets an array of its size once half of it came in the first read. */
    private final boolean wholeOnceHalfCame;
    private final List<byte[]> segments = new ArrayList<>();
    private int received;
    private int capacity;
    /** Bytes used in the newest segment. */
    private int filled;

    /**
     * @param length the Remaining Length announced, more than has arrived
     * @param wholeOnceHalfCame one array of the body's size once half of it came in the first read (a PUBLISH)
     */
    PartialBody(int length, boolean wholeOnceHalfCame) {
        this.length = length;
        this.wholeOnceHalfCame = wholeOnceHalfCame;
    }

    /** Bytes allocated: what arrived plus the newest segment's unused rest. */
    int capacity() { return capacity; }

    /**
     * Takes the input's bytes up to the end of the body.
     *
     * @return the whole body (exactly {@code length} bytes, its own array) once its last byte has come,
     *     else null with the input used up
     */
    ByteBuffer take(ByteBuffer input) {
        int missing = length - received;
        if (input.remaining() >= missing) return joined(input, missing);
        while (input.hasRemaining()) append(input);
        return null;
    }

    private void append(ByteBuffer input) {
        byte[] newest = segments.isEmpty() ? null : segments.get(segments.size() - 1);
        if (newest == null || filled == newest.length) {
            // At least what has come now; never more than the body still needs; all of it if half has come.
            int size = wholeOnceHalfCame && received == 0 && 2L * input.remaining() >= length ? length
                    : Math.min(length - received, Math.max(input.remaining(), MIN_SEGMENT));
            newest = new byte[size];
            segments.add(newest);
            capacity += newest.length;
            filled = 0;
        }
        int n = Math.min(input.remaining(), newest.length - filled);
        input.get(newest, filled, n);
        filled += n;
        received += n;
    }

    private ByteBuffer joined(ByteBuffer input, int missing) {
        if (segments.size() == 1 && segments.get(0).length == length) {  // the body's own array: the rest goes in it
            var body = segments.get(0);
            input.get(body, filled, missing);
            segments.clear();
            capacity = 0;
            return ByteBuffer.wrap(body);
        }
        var body = ByteBuffer.allocate(length);
        for (int i = 0; i < segments.size(); i++) {
            var segment = segments.get(i);
            body.put(segment, 0, i == segments.size() - 1 ? filled : segment.length);
        }
        body.put(input.slice(input.position(), missing));
        input.position(input.position() + missing);
        segments.clear();
        capacity = 0;
        return body.flip();
    }
}
