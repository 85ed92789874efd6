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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebSocketDecoderTest {

    private static final int BINARY = WebSocketFrames.BINARY;
    private static final int CONTINUATION = WebSocketFrames.CONTINUATION;

    /** What came out of a decoder fed a stream in chunks. */
    private static final class Run implements WebSocketDecoder.Control {
        final WebSocketDecoder decoder = new WebSocketDecoder();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
        final List<byte[]> pings = new ArrayList<>();
        String close;

        @Override
        public void onPing(ByteBuffer payload) {
            var bytes = new byte[payload.remaining()];
            payload.get(bytes);
            pings.add(bytes);
        }

        @Override
        public void onClose(int code, String reason) {
            close = code + " " + reason;
        }

        /** Feeds {@code stream} {@code chunk} bytes at a time through a buffer like the link's, into a {@code room}-byte parser buffer. */
        Run feed(byte[] stream, int chunk, int room) throws Exception {
            var in = ByteBuffer.allocateDirect(256);
            var dst = ByteBuffer.allocateDirect(room);
            int fed = 0;
            for (int guard = 0; guard < 1_000_000; guard++) {
                int n = Math.min(chunk, Math.min(stream.length - fed, in.remaining()));
                in.put(stream, fed, n);
                fed += n;
                in.flip();
                decoder.decode(in, dst, this);
                in.compact();
                dst.flip();
                var moved = new byte[dst.remaining()];
                dst.get(moved);
                data.writeBytes(moved);
                dst.clear();
                if (fed == stream.length && in.position() == 0) return this;
                if (decoder.closeReceived() && fed == stream.length) return this;
            }
            throw new AssertionError("no progress");
        }
    }

    @Test
    void severalFramesInOneReadComeOutAsOneStream() throws Exception {
        var a = bytes(10, 1);
        var b = bytes(300, 2);
        var c = bytes(70_000, 3);
        var run = new Run().feed(concat(frame(true, BINARY, a), frame(true, BINARY, b), frame(true, BINARY, c)), 256, 1 << 20);
        assertArrayEquals(concat(a, b, c), run.data.toByteArray());
    }

    @Test
    void framesSplitAtEveryByteComeOutTheSame() throws Exception {
        // A CONNACK split across two frames and a PUBACK + PINGRESP packed in a third, as a broker may send them.
        var stream = concat(frame(true, BINARY, new byte[] {0x20}), frame(true, BINARY, new byte[] {2, 0, 0}),
                frame(true, BINARY, new byte[] {0x40, 2, 0, 1, (byte) 0xD0, 0}),
                frame(true, BINARY, bytes(200, 4), 127));  // a 64-bit length for a short frame is legal
        var expected = concat(new byte[] {0x20, 2, 0, 0, 0x40, 2, 0, 1, (byte) 0xD0, 0}, bytes(200, 4));
        for (int chunk = 1; chunk <= stream.length; chunk++) {
            assertArrayEquals(expected, new Run().feed(stream, chunk, 4096).data.toByteArray(), "chunk " + chunk);
        }
    }

    @Test
    void aSmallDestinationTakesAFrameInPieces() throws Exception {
        var payload = bytes(5_000, 5);
        for (int room : new int[] {1, 7, 64, 4999}) {
            assertArrayEquals(payload, new Run().feed(frame(true, BINARY, payload), 100, room).data.toByteArray(), "room " + room);
        }
    }

    @Test
    void fragmentedMessageWithAPingBetweenFragments() throws Exception {
        var stream = concat(frame(false, BINARY, bytes(3, 1)), frame(false, CONTINUATION, bytes(0, 0)),
                frame(true, WebSocketFrames.PING, new byte[] {'h', 'i'}), frame(false, CONTINUATION, bytes(130, 2)),
                frame(true, WebSocketFrames.PONG, new byte[0]), frame(true, CONTINUATION, bytes(4, 3)),
                frame(true, BINARY, bytes(2, 4)));
        for (int chunk = 1; chunk <= stream.length; chunk++) {
            var run = new Run().feed(stream, chunk, 4096);
            assertArrayEquals(concat(bytes(3, 1), bytes(130, 2), bytes(4, 3), bytes(2, 4)), run.data.toByteArray());
            assertEquals(1, run.pings.size());
            assertArrayEquals(new byte[] {'h', 'i'}, run.pings.get(0));
            assertFalse(run.decoder.midMessage());
        }
    }

    @Test
    void closeIsReportedAndEndsDecoding() throws Exception {
        var close = concat(new byte[] {0x03, (byte) 0xE8}, "bye".getBytes());
        var run = new Run().feed(concat(frame(true, BINARY, bytes(5, 1)), frame(true, WebSocketFrames.CLOSE, close),
                frame(true, BINARY, bytes(5, 2))), 3, 4096);
        assertEquals("1000 bye", run.close);
        assertTrue(run.decoder.closeReceived());
        assertArrayEquals(bytes(5, 1), run.data.toByteArray(), "nothing after the close");
        assertEquals("1005 ", new Run().feed(frame(true, WebSocketFrames.CLOSE, new byte[0]), 10, 64).close);
    }

    @Test
    void framesTheRfcOrMqttForbidAreRefused() {
        assertRefused(concat(new byte[] {(byte) 0x82, (byte) 0x81, 1, 2, 3, 4, 5}), "masked");
        assertRefused(frame(true, WebSocketFrames.TEXT, "x".getBytes()), "text");
        assertRefused(frame(true, CONTINUATION, bytes(2, 0)), "continuation");
        assertRefused(concat(frame(false, BINARY, bytes(2, 0)), frame(true, BINARY, bytes(2, 0))), "inside a fragmented");
        assertRefused(new byte[] {(byte) 0xC2, 0}, "RSV");
        assertRefused(frame(false, WebSocketFrames.PING, new byte[0]), "control");
        assertRefused(frame(true, WebSocketFrames.PING, new byte[126]), "control");
        assertRefused(frame(true, 0x3, new byte[0]), "opcode 3");
        assertRefused(new byte[] {(byte) 0x82, 127, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0}, "top bit");
    }

    private static void assertRefused(byte[] stream, String why) {
        var e = assertThrows(WebSocketFrames.ProtocolException.class, () -> new Run().feed(stream, stream.length, 64));
        assertTrue(e.getMessage().contains(why), e.getMessage() + " should say " + why);
    }
}
