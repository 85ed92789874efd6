package io.pekquitto.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Memory follows what was received, never what was announced: however a stream is split, and whatever
 * Remaining Length its last, unfinished frame announces, the reader holds no more than the bytes it was
 * fed and has not yet handed back as frames, plus a small constant.
 */
class FrameReaderProperties {
    /** The slack a partial body may have (its newest segment's rounding). */
    private static final int SLACK = 64;

    @Provide
    Arbitrary<ProtocolVersion> versions() {
        return ArbitraryPackets.versions();
    }

    @Property(tries = 500)
    void bytesHeldNeverExceedTheBytesFedAndNotYetFramed(@ForAll("versions") ProtocolVersion version,
                                                         @ForAll long seed) {
        var random = new Random(seed);
        var stream = new ByteArrayOutputStream();
        var frames = new ArrayList<ByteBuffer>();
        int count = random.nextInt(6);
        for (int i = 0; i < count; i++) {
            var encoded = PacketEncoder.encode(ArbitraryPackets.packet(random, version), version);
            frames.add(encoded.duplicate());
            stream.writeBytes(CodecProperties.toArray(encoded));
        }
        stream.writeBytes(partialFrame(random));

        var reader = new FrameReader(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        long pending = 0;
        int framed = 0;
        var chunks = CodecProperties.split(stream.toByteArray(), random);
        for (int c = 0; c < chunks.size(); c++) {
            pending += chunks.get(c).remaining();
            reader.feed(chunks.get(c));
            if (c + 1 < chunks.size() && random.nextInt(4) == 0) {
                continue;  // feed again before polling: the reader joins the two
            }
            assertHeldAtMost(reader, pending);
            for (FrameReader.Frame frame; (frame = reader.next()) != null; framed++) {
                var whole = rebuilt(frame);
                assertEquals(frames.get(framed), whole);
                pending -= whole.remaining();
            }
            assertHeldAtMost(reader, pending);
        }
        assertEquals(frames.size(), framed);
        assertTrue(reader.hasPartialFrame());
    }

    private static void assertHeldAtMost(FrameReader reader, long pending) {
        int held = reader.bytesHeld();
        // Segments sized by what came (SLACK), or one array of the body's size once half of it came at once.
        assertTrue(held <= Math.max(pending + SLACK, 2 * pending), () -> held + " bytes held, " + pending + " fed and not yet framed");
    }

    /** A PUBLISH header announcing anything up to the protocol maximum, and fewer body bytes than that. */
    private static byte[] partialFrame(Random random) {
        int remainingLength = random.nextBoolean()
                ? DataRepresentation.MAX_VARIABLE_BYTE_INTEGER - random.nextInt(1000)
                : 2 + random.nextInt(5000);
        int arrived = random.nextInt(Math.min(remainingLength, 3000));
        var header = ByteBuffer.allocate(5);
        DataRepresentation.writeFixedHeader(header, 0x30, remainingLength);  // PUBLISH QoS 0
        var body = new byte[arrived];
        random.nextBytes(body);
        var frame = new ByteArrayOutputStream();
        frame.write(header.array(), 0, header.position());
        frame.writeBytes(body);
        return frame.toByteArray();
    }

    /** The frame's bytes as they were on the wire: fixed header, Remaining Length, body. */
    private static ByteBuffer rebuilt(FrameReader.Frame frame) {
        var body = frame.body().duplicate();
        var whole = ByteBuffer.allocate(DataRepresentation.packetSize(body.remaining()));
        DataRepresentation.writeFixedHeader(whole, frame.fixedHeader(), body.remaining());
        return whole.put(body).flip();
    }
}
