package io.pekquitto.bench;

import static io.pekquitto.bench.ServerFrames.bytes;
import static io.pekquitto.bench.ServerFrames.concat;
import static io.pekquitto.bench.ServerFrames.frame;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WebSocketLinkTest {

    /** A socket in memory: hands out queued chunks, takes at most {@code takes} bytes a write. */
    private static final class MemoryLink implements Link {
        final ArrayDeque<byte[]> incoming = new ArrayDeque<>();
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        int takes = Integer.MAX_VALUE;
        boolean ended;

        @Override
        public int read(ByteBuffer dst) {
            if (incoming.isEmpty()) return ended ? -1 : 0;
            var chunk = incoming.poll();
            int n = Math.min(chunk.length, dst.remaining());
            dst.put(chunk, 0, n);
            if (n < chunk.length) incoming.addFirst(Arrays.copyOfRange(chunk, n, chunk.length));
            return n;
        }

        @Override
        public void write(ByteBuffer src) {
            int n = Math.min(takes, src.remaining());
            var bytes = new byte[n];
            src.get(bytes);
            written.writeBytes(bytes);
        }

        /** What was written since the last call. */
        byte[] take() {
            var bytes = written.toByteArray();
            written.reset();
            return bytes;
        }
    }

    private final MemoryLink socket = new MemoryLink();
    private final WebSocketLink link = new WebSocketLink(socket, new InetSocketAddress("127.0.0.1", 9001), "/mqtt", 64, 64);

    /** Runs the upgrade against an answer built from the request's key; returns what followed the head. */
    private void upgrade(byte[] afterHead) throws Exception {
        assertFalse(link.handshake(), "waits for the response");
        var request = new String(socket.take(), StandardCharsets.ISO_8859_1);
        var key = request.split("Sec-WebSocket-Key: ")[1].split("\r\n")[0];
        var response = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: " + WebSocketHandshake.accept(key) + "\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        // In pieces, the head's end split, and frames right behind it.
        var all = concat(response, afterHead);
        for (int i = 0; i < all.length; i += 7) socket.incoming.add(Arrays.copyOfRange(all, i, Math.min(all.length, i + 7)));
        boolean done = false;
        for (int i = 0; i < 100 && !done; i++) done = link.handshake();
        assertTrue(done && link.handshaken());
    }

    private byte[] readAll() throws Exception {
        var out = new ByteArrayOutputStream();
        var dst = ByteBuffer.allocateDirect(16);
        for (int i = 0; i < 10_000; i++) {
            int n = link.read(dst);
            dst.flip();
            var bytes = new byte[dst.remaining()];
            dst.get(bytes);
            out.writeBytes(bytes);
            dst.clear();
            if (n <= 0 && socket.incoming.isEmpty()) break;
        }
        return out.toByteArray();
    }

    @Test
    void upgradeThenMqttBytesBothWays() throws Exception {
        var connack = new byte[] {0x20, 2, 0, 0};
        upgrade(frame(true, WebSocketFrames.BINARY, connack));
        assertArrayEquals(connack, readAll(), "a frame that came with the 101 is not lost");

        var publishes = bytes(1000, 7);
        socket.takes = 100;  // the socket takes little at a time: the rest waits in the link
        var src = ByteBuffer.allocateDirect(1000).put(publishes).flip();
        link.write(src);
        for (int i = 0; i < 100 && (src.hasRemaining() || link.hasPendingOutput()); i++) {
            if (link.flushPending()) link.write(src);
        }
        assertFalse(link.hasPendingOutput());
        var frames = ServerFrames.parse(socket.take());
        var sent = new ByteArrayOutputStream();
        for (var f : frames) {
            assertTrue(f.masked() && f.fin(), "every client frame masked and final");
            assertEquals(WebSocketFrames.BINARY, f.opcode());
            sent.writeBytes(f.payload());
        }
        assertArrayEquals(publishes, sent.toByteArray());
    }

    @Test
    void pingIsAnsweredWithAMaskedPong() throws Exception {
        upgrade(new byte[0]);
        socket.incoming.add(concat(frame(true, WebSocketFrames.PING, new byte[] {1, 2, 3}), frame(true, WebSocketFrames.BINARY, new byte[] {9})));
        assertArrayEquals(new byte[] {9}, readAll());
        link.flushPending();
        var pong = ServerFrames.parse(socket.take());
        assertEquals(1, pong.size());
        assertEquals(WebSocketFrames.PONG, pong.get(0).opcode());
        assertTrue(pong.get(0).masked());
        assertArrayEquals(new byte[] {1, 2, 3}, pong.get(0).payload());
    }

    @Test
    void closeIsEchoedAndEndsTheStreamWithTheReason() throws Exception {
        upgrade(new byte[0]);
        socket.incoming.add(frame(true, WebSocketFrames.CLOSE, new byte[] {0x03, (byte) 0xE9}));
        var e = assertThrows(EOFException.class, () -> link.read(ByteBuffer.allocate(16)));
        assertTrue(e.getMessage().contains("1001"), e.getMessage());
        var echo = ServerFrames.parse(socket.take());
        assertEquals(WebSocketFrames.CLOSE, echo.get(0).opcode());
        assertArrayEquals(new byte[] {0x03, (byte) 0xE9}, echo.get(0).payload());
    }

    @Test
    void aRefusedUpgradeSaysWhat() throws Exception {
        assertFalse(link.handshake());
        socket.take();
        socket.incoming.add("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        var e = assertThrows(WebSocketFrames.ProtocolException.class, link::handshake);
        assertTrue(e.getMessage().contains("404"), e.getMessage());
    }

    @Test
    void theEndOfTheStreamDuringTheUpgradeIsNamed() throws Exception {
        assertFalse(link.handshake());
        socket.ended = true;
        var e = assertThrows(EOFException.class, link::handshake);
        assertTrue(e.getMessage().contains("upgrade"), e.getMessage());
    }
}
