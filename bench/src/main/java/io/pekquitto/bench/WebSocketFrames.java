package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * RFC 6455 frames as a client writes them: FIN set, masked (section 5.3: every client frame MUST be),
 * the payload XORed eight bytes at a time straight from the source into the destination, no copy in
 * between and no allocation.
 */
final class WebSocketFrames {

    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;
    /** Largest header: 2 bytes, an 8-byte extended length, the 4-byte masking key. */
    static final int MAX_HEADER = 14;
    /** Control frames carry at most this much payload (section 5.5). */
    static final int MAX_CONTROL_PAYLOAD = 125;

    /** A frame the RFC forbids, or one a client of the `mqtt` subprotocol cannot use. */
    static final class ProtocolException extends IOException {
        ProtocolException(String message) {
            super(message);
        }
    }

    private WebSocketFrames() {}

    /** Header plus payload bytes of a masked frame carrying {@code length} bytes. */
    static int frameLength(int length) {
        return headerLength(length) + length;
    }

    static int headerLength(int length) {
        return length <= 125 ? 6 : length <= 0xFFFF ? 8 : 14;
    }

    /**
     * Writes one final, masked frame with the next {@code length} bytes of {@code src} (read mode,
     * advanced) into {@code dst} (write mode), which must have {@link #frameLength} bytes free.
     */
    static void encode(int opcode, ByteBuffer src, int length, ByteBuffer dst, int maskKey) {
        dst.put((byte) (0x80 | opcode));
        if (length <= 125) {
            dst.put((byte) (0x80 | length));
        } else if (length <= 0xFFFF) {
            dst.put((byte) (0x80 | 126)).putShort((short) length);
        } else {
            dst.put((byte) (0x80 | 127)).putLong(length);
        }
        dst.putInt(maskKey);
        mask(src, length, dst, maskKey);
    }

    /** Copies {@code length} bytes from src to dst XORed with the key, whose first byte is the key's top one. */
    static void mask(ByteBuffer src, int length, ByteBuffer dst, int maskKey) {
        int from = src.position();
        int to = dst.position();
        // Big-endian, like the buffers: byte i of the long is the key's byte i % 4 at every multiple of 8.
        long wide = (maskKey & 0xFFFFFFFFL) << 32 | (maskKey & 0xFFFFFFFFL);
        int i = 0;
        for (; i + 8 <= length; i += 8) dst.putLong(to + i, src.getLong(from + i) ^ wide);
        for (; i < length; i++) dst.put(to + i, (byte) (src.get(from + i) ^ (maskKey >>> (24 - 8 * (i & 3)))));
        src.position(from + length);
        dst.position(to + length);
    }
}
