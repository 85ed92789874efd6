package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class WebSocketFramesTest {

    private static byte[] encode(int opcode, byte[] payload, int maskKey) {
        var src = ByteBuffer.allocateDirect(payload.length + 3);
        src.put(new byte[3]).put(payload).flip().position(3);  // not at offset 0: absolute indexes must add it
        var dst = ByteBuffer.allocateDirect(WebSocketFrames.frameLength(payload.length) + 5);
        dst.put(new byte[5]);
        WebSocketFrames.encode(opcode, src, payload.length, dst, maskKey);
        assertEquals(0, src.remaining(), "source consumed");
        assertEquals(5 + WebSocketFrames.frameLength(payload.length), dst.position(), "frameLength is what was written");
        var bytes = new byte[dst.position() - 5];
        dst.get(5, bytes);
        return bytes;
    }

    @Test
    void rfc6455ExampleMaskedHello() {
        // RFC 6455 5.7: a single-frame masked text message containing "Hello"
        byte[] expected = {(byte) 0x81, (byte) 0x85, 0x37, (byte) 0xfa, 0x21, 0x3d, 0x7f, (byte) 0x9f, 0x4d, 0x51, 0x58};
        assertArrayEquals(expected, encode(WebSocketFrames.TEXT, "Hello".getBytes(), 0x37fa213d));
    }

    @Test
    void everyLengthFormRoundTripsMaskedAndFinal() {
        for (int length : new int[] {0, 1, 7, 8, 9, 125, 126, 127, 1000, 0xFFFF, 0x10000, 200_000}) {
            var payload = ServerFrames.bytes(length, length);
            var frames = ServerFrames.parse(encode(WebSocketFrames.BINARY, payload, 0x9E3779B9));
            assertEquals(1, frames.size());
            var frame = frames.get(0);
            assertTrue(frame.fin() && frame.masked(), "length " + length);
            assertEquals(WebSocketFrames.BINARY, frame.opcode());
            assertArrayEquals(payload, frame.payload(), "length " + length);
        }
    }

    @Test
    void headerUsesTheShortestLengthForm() {
        assertEquals(0x80 | 125, encode(WebSocketFrames.BINARY, new byte[125], 1)[1] & 0xFF);
        assertEquals(0x80 | 126, encode(WebSocketFrames.BINARY, new byte[126], 1)[1] & 0xFF);
        assertEquals(0x80 | 126, encode(WebSocketFrames.BINARY, new byte[0xFFFF], 1)[1] & 0xFF);
        assertEquals(0x80 | 127, encode(WebSocketFrames.BINARY, new byte[0x10000], 1)[1] & 0xFF);
    }

    @Test
    void maskingChangesThePayloadOnTheWire() {
        var payload = ServerFrames.bytes(40, 3);
        var wire = encode(WebSocketFrames.BINARY, payload, 0x01020304);
        var onWire = new byte[40];
        System.arraycopy(wire, 6, onWire, 0, 40);
        for (int i = 0; i < 40; i++) assertEquals((byte) (payload[i] ^ (i % 4 + 1)), onWire[i], "byte " + i);
    }
}
