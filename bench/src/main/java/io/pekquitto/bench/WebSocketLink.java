package io.pekquitto.bench;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * MQTT over WebSockets (--websocket), over a plain or TLS {@link Link}: the HTTP Upgrade first, then
 * every write goes out as masked binary frames (one frame per flush, so a frame holds whatever packets
 * the flush batched, as a TCP segment would) and every read hands on the payload of the server's
 * frames. Two buffers of its own, allocated once; nothing per message.
 */
final class WebSocketLink implements Link, WebSocketDecoder.Control {
    /** Room for any control frame (127 bytes) and a typical 101 response; smaller connections grow it. */
    private static final int MIN_BUFFER = 256;
    /** An upgrade response head larger than this is not one. */
    private static final int MAX_RESPONSE_HEAD = 64 * 1024;

    private final Link lower;
    private final WebSocketDecoder decoder = new WebSocketDecoder();
    private WebSocketHandshake handshake;
    /** Bytes from below not yet decoded, in write mode. */
    private ByteBuffer in;
    /** Frames not yet taken by the link below, in write mode. */
    private ByteBuffer out;
    private boolean requestSent;
    private boolean handshaken;
    /** The last decode stopped because the caller's buffer was full. */
    private boolean callerFull;
    private String closedBecause;

    WebSocketLink(Link lower, InetSocketAddress broker, String path, int readBuffer, int writeBuffer) {
        this.lower = lower;
        this.handshake = new WebSocketHandshake(broker.getHostString(), broker.getPort(), path);
        this.in = ByteBuffer.allocateDirect(Math.max(readBuffer, MIN_BUFFER));
        this.out = ByteBuffer.allocateDirect(Math.max(writeBuffer + WebSocketFrames.MAX_HEADER,
                Math.max(MIN_BUFFER, handshake.request.length)));
    }

    @Override
    public boolean handshaken() {
        return handshaken;
    }

    @Override
    public boolean handshake() throws IOException {
        if (handshaken) return true;
        if (!lower.handshaken() && !lower.handshake()) return false;
        if (!requestSent) {
            out.put(handshake.request);
            requestSent = true;
        }
        if (!pushDown()) return false;
        while (true) {
            int n = readUpgradeResponse();
            int end = headEnd(in);
            if (end >= 0) {
                handshake.check(StandardCharsets.ISO_8859_1.decode(in.duplicate().flip().limit(end - 4)).toString());
                in.flip().position(end);
                in.compact();  // what follows the head is frames already
                handshake = null;
                handshaken = true;
                return true;
            }
            if (!in.hasRemaining()) {
                if (in.capacity() >= MAX_RESPONSE_HEAD) throw new WebSocketFrames.ProtocolException("WebSocket upgrade failed: response head over 64 KiB");
                in = ByteBuffer.allocateDirect(in.capacity() * 2).put(in.flip());
            } else if (n == 0 && !lower.hasBufferedInput()) {
                return false;
            }
        }
    }

    /** A broker that does not speak HTTP on this port resets or closes: say where it happened. */
    private int readUpgradeResponse() throws IOException {
        int n;
        try {
            n = lower.read(in);
        } catch (IOException e) {
            throw new IOException("during the WebSocket upgrade: " + e.getMessage(), e);
        }
        if (n < 0) throw new EOFException("the broker closed the connection during the WebSocket upgrade");
        return n;
    }

    /** The index just past the first CRLFCRLF in {@code buffer[0, position)}, or -1. */
    private static int headEnd(ByteBuffer buffer) {
        for (int i = 3; i < buffer.position(); i++) {
            if (buffer.get(i) == '\n' && buffer.get(i - 1) == '\r' && buffer.get(i - 2) == '\n' && buffer.get(i - 3) == '\r') return i + 1;
        }
        return -1;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        boolean ended = false;
        if (in.hasRemaining()) ended = lower.read(in) < 0;
        in.flip();
        int moved;
        try {
            moved = decoder.decode(in, dst, this);
        } finally {
            in.compact();
        }
        callerFull = !dst.hasRemaining();
        if (moved > 0) return moved;
        if (closedBecause != null) throw new EOFException(closedBecause);
        return ended ? -1 : 0;
    }

    @Override
    public boolean hasBufferedInput() {
        return callerFull && in.position() > 0 || lower.hasBufferedInput();
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        if (!pushDown()) return;  // earlier frames first
        while (src.hasRemaining()) {
            // pushDown emptied out: it has room for a header and at least MIN_BUFFER - 14 bytes.
            int n = Math.min(src.remaining(), out.remaining() - WebSocketFrames.MAX_HEADER);
            WebSocketFrames.encode(WebSocketFrames.BINARY, src, n, out, maskKey());
            if (!pushDown()) return;
        }
    }

    @Override
    public boolean flushPending() throws IOException {
        return pushDown();
    }

    @Override
    public boolean hasPendingOutput() {
        return out.position() > 0 || lower.hasPendingOutput();
    }

    @Override
    public void onPing(ByteBuffer payload) throws IOException {
        control(WebSocketFrames.PONG, payload);  // sent with the connection's next flush, after this read
    }

    @Override
    public void onClose(int code, String reason) throws IOException {
        closedBecause = "the broker closed the WebSocket (" + code + (reason.isEmpty() ? "" : " " + reason) + ")";
        // Section 5.5.1: answer with a close echoing the code, then the connection ends.
        var echo = ByteBuffer.allocate(code == 1005 ? 0 : 2);
        if (code != 1005) echo.putShort(0, (short) code);
        control(WebSocketFrames.CLOSE, echo);
        pushDown();
    }

    private void control(int opcode, ByteBuffer payload) {
        int length = payload.remaining();
        if (out.remaining() < WebSocketFrames.frameLength(length)) {
            // Rare: a control frame while out holds unsent data frames that fill it.
            out = ByteBuffer.allocateDirect(out.capacity() + WebSocketFrames.frameLength(length)).put(out.flip());
        }
        WebSocketFrames.encode(opcode, payload, length, out, maskKey());
    }

    /** Hands frames to the link below; true when nothing is left, there or here. */
    private boolean pushDown() throws IOException {
        if (out.position() == 0) return lower.flushPending();
        out.flip();
        try {
            lower.write(out);
        } finally {
            out.compact();
        }
        return out.position() == 0 && !lower.hasPendingOutput();
    }

    /**
     * Section 5.3 asks for unpredictable keys so that a client script cannot steer the bytes a proxy
     * sees; a load generator writes its own bytes, so a fast random key per frame serves.
     */
    private static int maskKey() {
        return ThreadLocalRandom.current().nextInt();
    }
}
