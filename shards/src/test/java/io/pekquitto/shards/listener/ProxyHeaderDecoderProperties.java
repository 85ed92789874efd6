package io.pekquitto.shards.listener;

import static io.pekquitto.shards.listener.ProxyHeaders.LOCAL;
import static io.pekquitto.shards.listener.ProxyHeaders.PROXY;
import static io.pekquitto.shards.listener.ProxyHeaders.TCP4;
import static io.pekquitto.shards.listener.ProxyHeaders.TCP6;
import static io.pekquitto.shards.listener.ProxyHeaders.addresses;
import static io.pekquitto.shards.listener.ProxyHeaders.concat;
import static io.pekquitto.shards.listener.ProxyHeaders.v1;
import static io.pekquitto.shards.listener.ProxyHeaders.v2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * However a valid header and the bytes after it are split into chunks, the decoder finds the same
 * client address, and hands back exactly the bytes after the header, in order: nothing of the header
 * leaks to the connection, nothing of the client's bytes is lost.
 */
class ProxyHeaderDecoderProperties {
    private static final InetSocketAddress SOCKET_PEER = new InetSocketAddress("127.0.0.1", 40000);

    private record Case(byte[] header, Optional<InetSocketAddress> source) {}

    @Property(tries = 1000)
    void anySplitDecodesTheSameAddressAndTheSameTrailingBytes(@ForAll long seed) throws Exception {
        var random = new Random(seed);
        var valid = header(random);
        var trailing = new byte[random.nextInt(200)];
        random.nextBytes(trailing);
        var stream = concat(valid.header(), trailing);

        var decoder = new ProxyHeaderDecoder();
        ProxyHeader header = null;
        var after = new ByteArrayOutputStream();
        for (var chunk : split(stream, random)) {
            if (header == null) header = decoder.feed(chunk);  // leaves the chunk at the first byte after the header
            if (header != null) after.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
        }
        assertNotNull(header, "the header was read");
        assertEquals(valid.source().orElse(SOCKET_PEER), header.clientAddress(SOCKET_PEER));
        assertArrayEquals(trailing, after.toByteArray());
    }

    /** A v1 TCP4, TCP6 or UNKNOWN line, or a v2 PROXY over IPv4 or IPv6 with TLVs, or a v2 LOCAL. */
    private static Case header(Random random) throws UnknownHostException {
        int port = random.nextInt(65_536);
        var v4 = InetAddress.getByAddress(bytes(random, 4));
        var v6 = InetAddress.getByAddress(bytes(random, 16));
        return switch (random.nextInt(6)) {
            case 0 -> new Case(v1("PROXY TCP4 " + v4.getHostAddress() + " 10.0.0.1 " + port + " 1883\r\n"),
                    Optional.of(new InetSocketAddress(v4, port)));
            case 1 -> new Case(v1("PROXY TCP6 " + v6.getHostAddress() + " ::1 " + port + " 1883\r\n"),
                    Optional.of(new InetSocketAddress(InetAddress.getByName(v6.getHostAddress()), port)));
            case 2 -> new Case(v1("PROXY UNKNOWN\r\n"), Optional.empty());
            case 3 -> new Case(v2(PROXY, TCP4, addresses(v4.getAddress(), bytes(random, 4), port, 1883, tlvs(random))),
                    Optional.of(new InetSocketAddress(v4, port)));
            case 4 -> new Case(v2(PROXY, TCP6, addresses(v6.getAddress(), bytes(random, 16), port, 1883, tlvs(random))),
                    Optional.of(new InetSocketAddress(v6, port)));
            default -> new Case(v2(LOCAL, TCP4, addresses(v4.getAddress(), bytes(random, 4), port, 1883, tlvs(random))),
                    Optional.empty());
        };
    }

    /** TLVs the decoder skips: type, 2-byte length, value. */
    private static byte[] tlvs(Random random) {
        var out = new ByteArrayOutputStream();
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            var value = bytes(random, random.nextInt(60));
            out.write(random.nextInt(256));
            out.write(value.length >> 8);
            out.write(value.length & 0xFF);
            out.writeBytes(value);
        }
        return out.toByteArray();
    }

    private static byte[] bytes(Random random, int count) {
        var bytes = new byte[count];
        random.nextBytes(bytes);
        return bytes;
    }

    /** The stream cut at random places, single bytes and empty chunks included. */
    private static java.util.List<ByteBuffer> split(byte[] stream, Random random) {
        var cuts = new TreeSet<Integer>();
        int count = random.nextInt(Math.min(stream.length, 20) + 1);
        for (int i = 0; i < count; i++) cuts.add(random.nextInt(stream.length + 1));
        cuts.add(stream.length);
        var chunks = new java.util.ArrayList<ByteBuffer>();
        int from = 0;
        for (int cut : cuts) {
            chunks.add(ByteBuffer.wrap(stream, from, cut - from).slice());
            from = cut;
        }
        return chunks;
    }
}
