package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameParserTest {

    private record Frame(int header, byte[] body) {}

    private static List<Frame> feed(FrameParser parser, byte[] bytes, int chunk) throws Exception {
        var frames = new ArrayList<Frame>();
        for (int i = 0; i < bytes.length; i += chunk) {
            int n = Math.min(chunk, bytes.length - i);
            parser.buffer().put(bytes, i, n);
            parser.parse((header, frame, offset, length) -> {
                var body = new byte[length];
                frame.get(offset, body);
                frames.add(new Frame(header, body));
            });
        }
        return frames;
    }

    @Test
    void framesSplitAnywhereComeOutWhole() throws Exception {
        byte[] stream = {
            0x20, 2, 0, 0,            // CONNACK, accepted
            (byte) 0x90, 3, 0, 1, 1,  // SUBACK id 1, granted QoS 1
            (byte) 0xD0, 0,           // PINGRESP: empty body
            0x40, 2, 0x12, 0x34 };    // PUBACK id 0x1234
        for (int chunk = 1; chunk <= stream.length; chunk++) {
            var frames = feed(new FrameParser(64, 1 << 20), stream, chunk);
            assertEquals(4, frames.size(), "chunk " + chunk);
            assertEquals(0x20, frames.get(0).header());
            assertArrayEquals(new byte[] {0, 1, 1}, frames.get(1).body());
            assertEquals(0, frames.get(2).body().length);
            assertArrayEquals(new byte[] {0x12, 0x34}, frames.get(3).body());
        }
    }

    @Test
    void multiByteRemainingLengthAndAFrameLargerThanTheBufferGrowIt() throws Exception {
        var body = new byte[300];            // remaining length 300 = 0xAC 0x02
        for (int i = 0; i < body.length; i++) body[i] = (byte) i;
        var packet = ByteBuffer.allocate(3 + body.length).put((byte) 0x30).put((byte) 0xAC).put((byte) 0x02).put(body).array();
        var frames = feed(new FrameParser(16, 1 << 20), packet, 7);
        assertEquals(1, frames.size());
        assertArrayEquals(body, frames.get(0).body());
    }

    @Test
    void remainingLengthOfFiveBytesIsMalformed() {
        byte[] bytes = {0x30, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01};
        var parser = new FrameParser(64, Integer.MAX_VALUE);
        parser.buffer().put(bytes);
        assertThrows(FrameParser.MalformedFrameException.class, () -> parser.parse((h, f, o, l) -> { }));
    }

    @Test
    void frameOverTheLimitIsRefusedBeforeItsBodyArrives() {
        byte[] header = {0x30, (byte) 0x80, 0x01}; // remaining length 128, limit 100
        var parser = new FrameParser(64, 100);
        parser.buffer().put(header);
        assertThrows(FrameParser.MalformedFrameException.class, () -> parser.parse((h, f, o, l) -> { }));
    }
}
