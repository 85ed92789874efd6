package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Incremental MQTT framing over one receive buffer: the socket reads into {@link #buffer()}, then
 * {@link #parse} hands every complete frame to the handler in place (no copy, no allocation) and
 * keeps a partial frame's bytes for the next read. The buffer grows only for a frame larger than
 * itself.
 */
final class FrameParser {

    /** Receives one complete frame; the body is {@code frame[bodyOffset, bodyOffset + bodyLength)}. */
    interface Handler {
        void onFrame(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException;
    }

    /** A Remaining Length over four bytes, or a frame over the size limit. */
    static final class MalformedFrameException extends IOException {
        MalformedFrameException(String message) {
            super(message);
        }
    }

    private final int maxFrame;
    private ByteBuffer buffer; // write mode between parses

    FrameParser(int capacity, int maxFrame) {
        this.buffer = ByteBuffer.allocateDirect(capacity);
        this.maxFrame = maxFrame;
    }

    /** The buffer to read into, in write mode. */
    ByteBuffer buffer() {
        return buffer;
    }

    void reset() {
        buffer.clear();
    }

    /** Hands each complete frame in the buffer to the handler; returns the number of frames. */
    int parse(Handler handler) throws IOException {
        var buf = buffer;
        buf.flip();
        int frames = 0;
        int needed = 0;
        try {
            while (true) {
                int start = buf.position();
                int limit = buf.limit();
                if (limit - start < 2) break;
                int header = buf.get(start) & 0xFF;
                int length = 0;
                int i = 0;
                boolean complete = false;
                while (start + 1 + i < limit) {
                    int b = buf.get(start + 1 + i) & 0xFF;
                    length |= (b & 0x7F) << (7 * i);
                    i++;
                    if ((b & 0x80) == 0) {
                        complete = true;
                        break;
                    }
                    if (i == 4) throw new MalformedFrameException("remaining length longer than four bytes");
                }
                if (!complete) break;
                int total = 1 + i + length;
                if (total > maxFrame || total < 0) throw new MalformedFrameException("frame of " + total + " bytes over the limit");
                if (limit - start < total) {
                    needed = total;
                    break;
                }
                handler.onFrame(header, buf, start + 1 + i, length);
                buf.position(start + total);
                frames++;
            }
        } finally {
            buf.compact();
        }
        if (needed > buf.capacity()) grow(needed);
        return frames;
    }

    private void grow(int capacity) {
        var bigger = ByteBuffer.allocateDirect(Math.max(capacity, buffer.capacity() * 2));
        buffer.flip();
        bigger.put(buffer);
        buffer = bigger;
    }
}
