package io.pekquitto.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ProtocolVersion;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The three codec properties: encode then decode is identity for every packet type and version; any
 * bytes give packets or a {@link MalformedPacketException} and nothing else, and terminate; a valid
 * stream split anywhere decodes the same. Plus: {@code encodedSize} is the encoded length.
 */
class CodecProperties {
    private static final int MAXIMUM_PACKET_SIZE = 1 << 20;

    @Provide
    Arbitrary<ArbitraryPackets.Case> cases() {
        return ArbitraryPackets.cases();
    }

    @Provide
    Arbitrary<ProtocolVersion> versions() {
        return ArbitraryPackets.versions();
    }

    @Property(tries = 1500)
    void encodeThenDecodeIsIdentity(@ForAll("cases") ArbitraryPackets.Case testCase) {
        var reader = new PacketReader(MAXIMUM_PACKET_SIZE, testCase.version());
        reader.feed(PacketEncoder.encode(testCase.packet(), testCase.version()));
        assertEquals(testCase.packet(), reader.poll());
        assertNull(reader.poll());
        assertFalse(reader.hasPartialPacket());
    }

    @Property(tries = 300)
    void everyPacketTypeRoundTripsInEveryVersion(@ForAll long seed) {
        var random = new Random(seed);
        for (var version : ProtocolVersion.values()) {
            for (var type : ArbitraryPackets.types(version)) {
                var packet = ArbitraryPackets.packet(random, type, version);
                var reader = new PacketReader(MAXIMUM_PACKET_SIZE, version);
                reader.feed(PacketEncoder.encode(packet, version));
                assertEquals(packet, reader.poll(), () -> type + " in " + version);
            }
        }
    }

    @Property(tries = 500)
    void encodedSizeIsTheEncodedLength(@ForAll("cases") ArbitraryPackets.Case testCase,
                                       @ForAll @IntRange(max = 7) int offset) {
        var packet = testCase.packet();
        var version = testCase.version();
        int size = PacketEncoder.encodedSize(packet, version);
        var encoded = PacketEncoder.encode(packet, version);
        assertEquals(size, encoded.remaining());
        var target = ByteBuffer.allocate(offset + size + 3);
        target.position(offset);
        PacketEncoder.encode(packet, version, target);
        assertEquals(offset + size, target.position());
        assertEquals(encoded, target.flip().position(offset));
    }

    @Property(tries = 1000)
    void arbitraryBytesGivePacketsOrMalformed(@ForAll @Size(max = 300) byte[] bytes,
                                             @ForAll("versions") ProtocolVersion version,
                                             @ForAll long seed) {
        decodeCheckingOnlyMalformedEscapes(bytes, version, new Random(seed));
    }

    @Property(tries = 1000)
    void mutatedEncodingsGivePacketsOrMalformed(@ForAll("versions") ProtocolVersion version, @ForAll long seed) {
        var random = new Random(seed);
        var bytes = new ByteArrayOutputStream();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) bytes.writeBytes(toArray(PacketEncoder.encode(ArbitraryPackets.packet(random, version), version)));
        decodeCheckingOnlyMalformedEscapes(mutate(bytes.toByteArray(), random), version, random);
    }

    @Property(tries = 500)
    void validStreamSplitAnywhereDecodesTheSamePackets(@ForAll("versions") ProtocolVersion version, @ForAll long seed) {
        var random = new Random(seed);
        var packets = new ArrayList<Packet>();
        packets.add(ArbitraryPackets.packet(random, PacketType.CONNECT, version));
        int count = random.nextInt(8);
        for (int i = 0; i < count; i++) packets.add(ArbitraryPackets.packet(random, version));
        var stream = new ByteArrayOutputStream();
        for (var packet : packets) stream.writeBytes(toArray(PacketEncoder.encode(packet, version)));
        var bytes = stream.toByteArray();

        var reader = new PacketReader(MAXIMUM_PACKET_SIZE);  // learns the version from the CONNECT
        var decoded = new ArrayList<Packet>();
        for (var chunk : split(bytes, random)) {
            reader.feed(chunk);
            for (Packet packet; (packet = reader.poll()) != null; ) decoded.add(packet);
        }
        assertEquals(packets, decoded);
        assertEquals(version, reader.version());
        assertEquals(((Connect) packets.get(0)).version(), reader.version());
        assertFalse(reader.hasPartialPacket());
    }

    /** Feeds the bytes in random chunks; only a MalformedPacketException may escape, and it sticks. */
    private static void decodeCheckingOnlyMalformedEscapes(byte[] bytes, ProtocolVersion version, Random random) {
        var reader = random.nextBoolean() ? new PacketReader(4096, version) : new PacketReader(4096);
        try {
            int polls = 0;
            for (var chunk : split(bytes, random)) {
                reader.feed(chunk);
                while (reader.poll() != null) {
                    if (++polls > bytes.length) throw new AssertionError("more packets than bytes");
                }
            }
        } catch (MalformedPacketException e) {
            var again = assertThrows(MalformedPacketException.class, reader::poll);
            assertSame(e.reason(), again.reason());
        }
    }

    private static byte[] mutate(byte[] bytes, Random random) {
        var mutated = bytes.clone();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations && mutated.length > 0; m++) {
            int at = random.nextInt(mutated.length);
            switch (random.nextInt(5)) {
                case 0 -> mutated[at] = (byte) random.nextInt(256);
                case 1 -> mutated[at] ^= (byte) (1 << random.nextInt(8));
                case 2 -> mutated = Arrays.copyOf(mutated, at);  // truncate
                case 3 -> {  // delete one byte
                    var shorter = new byte[mutated.length - 1];
                    System.arraycopy(mutated, 0, shorter, 0, at);
                    System.arraycopy(mutated, at + 1, shorter, at, mutated.length - at - 1);
                    mutated = shorter;
                }
                default -> {  // insert one byte
                    var longer = new byte[mutated.length + 1];
                    System.arraycopy(mutated, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(mutated, at, longer, at + 1, mutated.length - at);
                    mutated = longer;
                }
            }
        }
        return mutated;
    }

    /** Random chunks, as heap, read-only and direct buffers (the last two have no accessible array). */
    static List<ByteBuffer> split(byte[] bytes, Random random) {
        var chunks = new ArrayList<ByteBuffer>();
        int position = 0;
        while (position < bytes.length) {
            int length = random.nextInt(4) == 0 ? bytes.length - position : 1 + random.nextInt(Math.min(12, bytes.length - position));
            var chunk = switch (random.nextInt(3)) {
                case 0 -> ByteBuffer.wrap(bytes, position, length).slice();
                case 1 -> ByteBuffer.wrap(bytes, position, length).slice().asReadOnlyBuffer();
                default -> ByteBuffer.allocateDirect(length).put(bytes, position, length).flip();
            };
            chunks.add(chunk);
            position += length;
        }
        if (chunks.isEmpty() || random.nextInt(5) == 0) chunks.add(ByteBuffer.allocate(0));
        return chunks;
    }

    static byte[] toArray(ByteBuffer buffer) {
        var bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

}
