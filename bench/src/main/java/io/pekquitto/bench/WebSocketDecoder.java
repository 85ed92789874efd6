package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Turns the frames a server sends back into the byte stream they carry: the payload of binary frames
 * and their continuations is copied into the MQTT parser's buffer as it arrives, a frame at a time or
 * in pieces (a frame need not be whole, nor hold whole MQTT packets); control frames, at most 125
 * bytes, wait until whole and go to the {@link Control}. State survives between calls, so frames
 * may span reads and one read may hold several.
 */
final class WebSocketDecoder {

    /** What the link does with control frames. */
    interface Control {
        /** A ping; its payload is {@code payload[position, limit)}, valid during the call only. */
        void onPing(ByteBuffer payload) throws IOException;

        /** A close frame: status code (1005 when it has none) and reason. */
        void onClose(int code, String reason) throws IOException;
    }

    /** Payload bytes of the current data frame not yet moved. */
    private long payloadLeft;
    /** A binary message whose final frame has not come: only continuations may follow. */
    private boolean inMessage;
    private boolean closeReceived;

    /**
     * Moves data-frame payload from {@code src} (read mode, advanced past what was used) into
     * {@code dst} (write mode) until either runs out; handles the control frames on the way.
     * Returns the bytes moved. Nothing is decoded after a close frame.
     */
    int decode(ByteBuffer src, ByteBuffer dst, Control control) throws IOException {
        int moved = 0;
        while (true) {
            if (payloadLeft > 0) {
                int n = (int) Math.min(payloadLeft, Math.min(src.remaining(), dst.remaining()));
                if (n == 0) return moved;
                int limit = src.limit();
                dst.put(src.limit(src.position() + n));
                src.limit(limit);
                payloadLeft -= n;
                moved += n;
                continue;
            }
            if (closeReceived || !nextFrame(src, control)) return moved;
        }
    }

    boolean closeReceived() {
        return closeReceived;
    }

    /** Whether the decoder is inside a frame or a fragmented message (a clean cut has neither). */
    boolean midMessage() {
        return payloadLeft > 0 || inMessage;
    }

    /** Reads one frame header (and a control frame's payload); false when src holds too little. */
    private boolean nextFrame(ByteBuffer src, Control control) throws IOException {
        int start = src.position();
        int available = src.remaining();
        if (available < 2) return false;
        int b0 = src.get(start) & 0xFF;
        int b1 = src.get(start + 1) & 0xFF;
        boolean fin = (b0 & 0x80) != 0;
        int opcode = b0 & 0x0F;
        if ((b0 & 0x70) != 0) throw new WebSocketFrames.ProtocolException("frame with RSV bits set, no extension was negotiated");
        if ((b1 & 0x80) != 0) throw new WebSocketFrames.ProtocolException("masked frame from the server (RFC 6455 5.1)");
        int length7 = b1 & 0x7F;
        int header = length7 == 126 ? 4 : length7 == 127 ? 10 : 2;
        if (available < header) return false;
        long length = length7 == 126 ? src.getShort(start + 2) & 0xFFFF : length7 == 127 ? src.getLong(start + 2) : length7;
        if (length < 0) throw new WebSocketFrames.ProtocolException("frame length with its top bit set");
        switch (opcode) {
            case WebSocketFrames.BINARY, WebSocketFrames.CONTINUATION -> {
                if (opcode == WebSocketFrames.BINARY && inMessage) {
                    throw new WebSocketFrames.ProtocolException("binary frame inside a fragmented message");
                }
                if (opcode == WebSocketFrames.CONTINUATION && !inMessage) {
                    throw new WebSocketFrames.ProtocolException("continuation frame without a message to continue");
                }
                inMessage = !fin;
                payloadLeft = length;
                src.position(start + header);
                return true;
            }
            case WebSocketFrames.PING, WebSocketFrames.PONG, WebSocketFrames.CLOSE -> {
                if (!fin || length > WebSocketFrames.MAX_CONTROL_PAYLOAD) {
                    throw new WebSocketFrames.ProtocolException("fragmented or oversized control frame");
                }
                if (available < header + length) return false;
                int payloadStart = start + header;
                int payloadEnd = payloadStart + (int) length;
                src.position(payloadEnd);
                if (opcode == WebSocketFrames.PING) {
                    control.onPing(src.duplicate().limit(payloadEnd).position(payloadStart));  // pings are rare
                } else if (opcode == WebSocketFrames.CLOSE) {
                    closeReceived = true;
                    control.onClose(length >= 2 ? src.getShort(payloadStart) & 0xFFFF : 1005,
                            length > 2 ? reason(src, payloadStart + 2, payloadEnd) : "");
                }
                return true;  // a pong answers nothing we send: skipped
            }
            case WebSocketFrames.TEXT -> throw new WebSocketFrames.ProtocolException("text frame: MQTT over WebSockets is binary only");
            default -> throw new WebSocketFrames.ProtocolException("unknown opcode " + opcode);
        }
    }

    private static String reason(ByteBuffer src, int from, int to) {
        var bytes = new byte[to - from];
        src.get(from, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
