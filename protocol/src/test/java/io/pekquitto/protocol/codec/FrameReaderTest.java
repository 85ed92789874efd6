package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FrameReaderTest {
    @Test
    void wholeFrameInsideTheFedBufferIsASliceOfIt() {
        var fed = bytes(
                0x30, 3,            // PUBLISH QoS 0, remaining length 3
                0, 1, 'a',          // topic "a", no payload
                0xC0, 0);           // PINGREQ
        var reader = new FrameReader(100);
        reader.feed(ByteBuffer.wrap(fed));
        var frame = reader.next();
        assertEquals(0x30, frame.fixedHeader());
        assertSame(fed, frame.body().array());  // no copy
        assertFalse(frame.owned(), "the caller's bytes");
        assertEquals(3, frame.body().remaining());
        assertEquals(0xC0, reader.next().fixedHeader());
        assertNull(reader.next());
        assertFalse(reader.hasPartialFrame());
    }

    @Test
    void frameSplitInsideTheRemainingLengthIsJoined() {
        var reader = new FrameReader(1000);
        reader.feed(ByteBuffer.wrap(bytes(0x30, 0x82)));  // PUBLISH, remaining length 130, first byte
        assertNull(reader.next());
        assertTrue(reader.hasPartialFrame());
        var rest = new byte[1 + 130];
        rest[0] = 0x01;                                    // second length byte
        reader.feed(ByteBuffer.wrap(rest, 0, 50));
        assertNull(reader.next());
        assertEquals(FrameReader.State.READING_BODY, reader.state());
        reader.feed(ByteBuffer.wrap(rest, 50, rest.length - 50));
        assertEquals(130, reader.next().body().remaining());
        assertFalse(reader.hasPartialFrame());
    }

    @Test
    void aBodyHalfOfWhichCameInOneReadGetsOneArrayOfItsSizeThatBecomesTheBody() {
        var reader = new FrameReader(1000);
        var frame = new byte[3 + 130];
        frame[0] = 0x30;
        frame[1] = (byte) 0x82;
        frame[2] = 0x01;        // remaining length 130
        for (int i = 3; i < frame.length; i++) frame[i] = (byte) i;
        reader.feed(ByteBuffer.wrap(frame, 0, 3 + 65));  // half of the body
        assertNull(reader.next());
        assertEquals(130, reader.bytesHeld(), "the body's size at once: twice what came at most");
        reader.feed(ByteBuffer.wrap(frame, 3 + 65, 65));
        var decoded = reader.next();
        assertTrue(decoded.owned());
        assertEquals(130, decoded.body().array().length, "the body is that array, not a second copy");
        assertBody(frame, decoded);

        var small = new FrameReader(1000);
        small.feed(ByteBuffer.wrap(frame, 0, 3 + 64));  // less than half: sized by what came
        assertNull(small.next());
        assertTrue(small.bytesHeld() <= 64 + PartialBody.MIN_SEGMENT, () -> small.bytesHeld() + " held");
        small.feed(ByteBuffer.wrap(frame, 3 + 64, 66));
        var joined = small.next();
        assertTrue(joined.owned());
        assertBody(frame, joined);
    }

    @Test
    void frameLargerThanTheMaximumIsRefusedBeforeItsBody() {
        var reader = new FrameReader(100);
        reader.feed(ByteBuffer.wrap(bytes(0x30, 98)));  // 1 + 1 + 98 = 100 bytes: allowed
        assertNull(reader.next());
        var tooLarge = new FrameReader(100);
        tooLarge.feed(ByteBuffer.wrap(bytes(0x30, 99)));  // 101 bytes, no body sent yet
        var e = assertThrows(MalformedPacketException.class, tooLarge::next);
        assertEquals(ReasonCode.PACKET_TOO_LARGE, e.reason());
        assertEquals(FrameReader.State.FAILED, tooLarge.state());
    }

    @Test
    void remainingLengthOfFiveBytesIsMalformed() {
        var reader = new FrameReader(Integer.MAX_VALUE);
        reader.feed(ByteBuffer.wrap(bytes(0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01)));
        assertEquals(ReasonCode.MALFORMED_PACKET, assertThrows(MalformedPacketException.class, reader::next).reason());
    }

    @Test
    void packetTypeZeroIsMalformedAtTheFirstByte() {
        var reader = new FrameReader(100);
        reader.feed(ByteBuffer.wrap(bytes(0x00)));  // reserved type 0 (2.1.2)
        assertThrows(MalformedPacketException.class, reader::next);
    }

    @Test
    void failedReaderThrowsAgain() {
        var reader = new FrameReader(100);
        reader.feed(ByteBuffer.wrap(bytes(0x00)));
        var first = assertThrows(MalformedPacketException.class, reader::next);
        reader.feed(ByteBuffer.wrap(bytes(0xC0, 0)));
        assertSame(first, assertThrows(MalformedPacketException.class, reader::next));
    }

    @Test
    void unreadBytesOfAnEarlierFeedAreKept() {
        var reader = new FrameReader(100);
        reader.feed(ByteBuffer.wrap(bytes(0xC0, 0, 0xD0)));  // PINGREQ, start of PINGRESP
        reader.feed(ByteBuffer.wrap(bytes(0)));               // fed before polling: contract bent
        assertEquals(4, reader.bytesHeld());                  // the join copies the unread bytes only
        assertEquals(0xC0, reader.next().fixedHeader());
        assertEquals(0xD0, reader.next().fixedHeader());
        assertNull(reader.next());
        assertEquals(0, reader.bytesHeld());
    }

    @Test
    void announcedBodyIsNotAllocatedBeforeItArrives() {
        var reader = new FrameReader(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        reader.feed(ByteBuffer.wrap(bytes(
                0x30, 0xFF, 0xFF, 0xFF, 0x7F,   // PUBLISH, remaining length 268,435,455 (256 MiB - 1)
                0, 1, 'a',                      // topic "a"
                1, 2, 3, 4, 5, 6, 7)));         // 7 payload bytes: 10 of the body in all
        assertNull(reader.next());
        assertTrue(reader.bytesHeld() <= 64, () -> reader.bytesHeld() + " bytes held for 10 received");
    }

    @Test
    void bodyFedByteAtATimeIsDecoded() {
        var frame = frameWithBody(1000);
        var reader = new FrameReader(2000);
        for (int i = 0; i < frame.length - 1; i++) {
            reader.feed(ByteBuffer.wrap(frame, i, 1));
            assertNull(reader.next());
            assertTrue(reader.bytesHeld() <= i + 1 + 64, "held more than was fed");
        }
        reader.feed(ByteBuffer.wrap(frame, frame.length - 1, 1));
        assertBody(frame, reader.next());
        assertEquals(0, reader.bytesHeld());
    }

    @Test
    void bodyFedInRandomPiecesIsDecoded() {
        var frame = frameWithBody(5000);
        for (long seed = 0; seed < 50; seed++) {
            var random = new Random(seed);
            var reader = new FrameReader(6000);
            var decoded = new ArrayList<FrameReader.Frame>();
            for (var piece : CodecProperties.split(frame, random)) {
                reader.feed(piece);
                for (FrameReader.Frame next; (next = reader.next()) != null; ) decoded.add(next);
            }
            assertEquals(1, decoded.size());
            assertBody(frame, decoded.get(0));
            assertFalse(reader.hasPartialFrame());
        }
    }

    /** A PUBLISH frame whose remaining length takes two bytes; the body counts up so misplaced bytes show. */
    private static byte[] frameWithBody(int bodyLength) {
        var frame = new byte[3 + bodyLength];
        frame[0] = 0x30;                                // PUBLISH QoS 0
        frame[1] = (byte) (0x80 | (bodyLength & 0x7F)); // remaining length, low seven bits
        frame[2] = (byte) (bodyLength >> 7);            // high seven bits
        for (int i = 0; i < bodyLength; i++) frame[3 + i] = (byte) i;
        return frame;
    }

    private static void assertBody(byte[] frame, FrameReader.Frame decoded) {
        assertEquals(frame[0], (byte) decoded.fixedHeader());
        assertEquals(ByteBuffer.wrap(frame, 3, frame.length - 3), decoded.body());
    }
}
