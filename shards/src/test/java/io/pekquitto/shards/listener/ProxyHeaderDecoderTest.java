package io.pekquitto.shards.listener;

import static io.pekquitto.shards.listener.ProxyHeaders.LOCAL;
import static io.pekquitto.shards.listener.ProxyHeaders.PROXY;
import static io.pekquitto.shards.listener.ProxyHeaders.TCP4;
import static io.pekquitto.shards.listener.ProxyHeaders.TCP6;
import static io.pekquitto.shards.listener.ProxyHeaders.UNIX;
import static io.pekquitto.shards.listener.ProxyHeaders.addresses;
import static io.pekquitto.shards.listener.ProxyHeaders.concat;
import static io.pekquitto.shards.listener.ProxyHeaders.v1;
import static io.pekquitto.shards.listener.ProxyHeaders.v2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The PROXY protocol header, v1 and v2, as proxy-protocol.txt writes it, and every way it can be wrong. */
class ProxyHeaderDecoderTest {
    private static final InetSocketAddress SOCKET_PEER = new InetSocketAddress("127.0.0.1", 40000);
    private static final byte[] CONNECT_START = {0x10, 0x0D, 0x00, 0x04, 'M', 'Q', 'T', 'T'};  // what follows the header
    private static final byte[] V4_SOURCE = {(byte) 192, 0, 2, 7};
    private static final byte[] V4_DESTINATION = {(byte) 198, 51, 100, 1};

    /** Decodes {@code bytes} in one chunk: the header, and the chunk left at the first byte after it. */
    private static ProxyHeader decode(ByteBuffer bytes) throws ProxyHeaderException {
        var header = new ProxyHeaderDecoder().feed(bytes);
        assertTrue(header != null, "a whole header");
        return header;
    }

    private static ProxyHeaderException refused(byte[] bytes) {
        return assertThrows(ProxyHeaderException.class, () -> new ProxyHeaderDecoder().feed(ByteBuffer.wrap(bytes)));
    }

    private static InetSocketAddress address(String host, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(host), port);
    }

    // ---- v1

    @Test
    void aV1Tcp4LineNamesTheClientAndLeavesTheMqttBytes() throws Exception {
        var bytes = ByteBuffer.wrap(concat(v1("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n"), CONNECT_START));
        var header = decode(bytes);
        assertEquals(1, header.version());
        assertEquals(address("192.0.2.7", 51234), header.clientAddress(SOCKET_PEER));
        assertEquals(ByteBuffer.wrap(CONNECT_START), bytes, "the CONNECT's bytes are left, unread");
    }

    @Test
    void aV1Tcp6Line() throws Exception {
        var header = decode(ByteBuffer.wrap(v1("PROXY TCP6 2001:db8::7 2001:db8::1 51234 8883\r\n")));
        assertEquals(address("2001:db8::7", 51234), header.clientAddress(SOCKET_PEER));
    }

    @Test
    void theLongestV1LineIsRead() throws Exception {  // 2.1: at most 107 bytes
        var all = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
        var line = "PROXY TCP6 " + all + " " + all + " 65535 65535\r\n";
        assertTrue(line.length() <= ProxyHeaderDecoder.V1_MAX_LENGTH);
        assertEquals(65535, decode(ByteBuffer.wrap(v1(line))).clientAddress(SOCKET_PEER).getPort());
    }

    @Test
    void unknownKeepsTheSocketsAddress() throws Exception {  // 2.1: the rest of an UNKNOWN line is ignored
        assertEquals(SOCKET_PEER, decode(ByteBuffer.wrap(v1("PROXY UNKNOWN\r\n"))).clientAddress(SOCKET_PEER));
        assertEquals(SOCKET_PEER, decode(ByteBuffer.wrap(v1("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:fff 65535 65535\r\n")))
                .clientAddress(SOCKET_PEER));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\n",        // LF without CR
            "PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\r\n",    // a CR inside
            "PROXY TCP5 192.0.2.7 198.51.100.1 51234 1883\r\n",      // no such protocol
            "PROXY TCP4 192.0.2.7 198.51.100.1 51234\r\n",           // a field missing
            "PROXY TCP4  192.0.2.7 198.51.100.1 51234 1883\r\n",     // two spaces
            "PROXY TCP4 192.0.2.256 198.51.100.1 51234 1883\r\n",    // an octet above 255
            "PROXY TCP4 2001:db8::7 198.51.100.1 51234 1883\r\n",    // IPv6 as TCP4
            "PROXY TCP6 192.0.2.7 2001:db8::1 51234 1883\r\n",       // IPv4 as TCP6
            "PROXY TCP4 localhost 198.51.100.1 51234 1883\r\n",      // a name: never resolved
            "PROXY TCP6 fe80::1%eth0 2001:db8::1 51234 1883\r\n",    // a scope: not a plain literal
            "PROXY TCP4 192.0.2.7 198.51.100.1 65536 1883\r\n",      // a port above 65535
            "PROXY TCP4 192.0.2.7 198.51.100.1 -1 1883\r\n",         // a sign
            "proxy TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n",      // the keyword is upper case
            "PROXYTCP4 192.0.2.7 198.51.100.1 51234 1883\r\n"})      // no space after it
    void aMalformedV1LineIsRefused(String line) {
        refused(v1(line));
    }

    @Test
    void aV1LineWithoutCrlfWithin107BytesIsRefusedAtItsLimit() throws Exception {
        var decoder = new ProxyHeaderDecoder();
        var first106 = v1("PROXY " + "1".repeat(100));
        assertNull(decoder.feed(ByteBuffer.wrap(first106)), "106 bytes: may still end");
        assertThrows(ProxyHeaderException.class, () -> decoder.feed(ByteBuffer.wrap(v1("1"))), "107 bytes and no LF");
    }

    // ---- v2

    @Test
    void aV2ProxyTcp4HeaderNamesTheClientSkipsItsTlvsAndLeavesTheMqttBytes() throws Exception {
        var tlvs = new byte[] {0x04, 0x00, 0x03, 'a', 'b', 'c', 0x05, 0x00, 0x01, 0x01};  // NOOP and UNIQUE_ID TLVs
        var body = addresses(V4_SOURCE, V4_DESTINATION, 51234, 1883, tlvs);
        var bytes = ByteBuffer.wrap(concat(v2(PROXY, TCP4, body), CONNECT_START));
        var header = decode(bytes);
        assertEquals(2, header.version());
        assertEquals(address("192.0.2.7", 51234), header.clientAddress(SOCKET_PEER));
        assertEquals(ByteBuffer.wrap(CONNECT_START), bytes);
    }

    @Test
    void aV2ProxyTcp6Header() throws Exception {
        var source = InetAddress.getByName("2001:db8::7").getAddress();
        var destination = InetAddress.getByName("2001:db8::1").getAddress();
        var header = decode(ByteBuffer.wrap(v2(PROXY, TCP6, addresses(source, destination, 443, 8883, new byte[0]))));
        assertEquals(address("2001:db8::7", 443), header.clientAddress(SOCKET_PEER));
    }

    @Test
    void localKeepsTheSocketsAddressWhateverItCarries() throws Exception {  // 2.2: the balancer's own health check
        var body = addresses(V4_SOURCE, V4_DESTINATION, 51234, 1883, new byte[0]);
        assertEquals(SOCKET_PEER, decode(ByteBuffer.wrap(v2(LOCAL, TCP4, body))).clientAddress(SOCKET_PEER));
        assertEquals(SOCKET_PEER, decode(ByteBuffer.wrap(v2(LOCAL, 0x00, new byte[0]))).clientAddress(SOCKET_PEER));
    }

    @Test
    void unixAndUnspecifiedFamiliesKeepTheSocketsAddress() throws Exception {
        assertEquals(Optional.empty(), decode(ByteBuffer.wrap(v2(PROXY, UNIX, new byte[216]))).source());
        assertEquals(Optional.empty(), decode(ByteBuffer.wrap(v2(PROXY, 0x00, new byte[0]))).source());
    }

    @Test
    void aV2LengthAboveTheBoundIsRefusedBeforeItsBodyIsRead() {
        var decoder = new ProxyHeaderDecoder();
        var fixedPart = v2(PROXY, TCP4, new byte[0]);
        int tooLong = ProxyHeaderDecoder.V2_MAX_BODY + 1;
        fixedPart[14] = (byte) (tooLong >> 8);
        fixedPart[15] = (byte) tooLong;
        assertThrows(ProxyHeaderException.class, () -> decoder.feed(ByteBuffer.wrap(fixedPart)));
    }

    @Test
    void aV2HeaderAtTheBoundIsRead() throws Exception {
        var body = addresses(V4_SOURCE, V4_DESTINATION, 1, 2, new byte[ProxyHeaderDecoder.V2_MAX_BODY - 12]);
        assertEquals(1, decode(ByteBuffer.wrap(v2(PROXY, TCP4, body))).clientAddress(SOCKET_PEER).getPort());
    }

    @Test
    void malformedV2HeadersAreRefused() {
        var tcp4 = addresses(V4_SOURCE, V4_DESTINATION, 51234, 1883, new byte[0]);
        var badSignature = v2(PROXY, TCP4, tcp4);
        badSignature[11] = 0x0B;  // "QUIT\n" misspelt
        refused(badSignature);
        refused(v2(0x11, TCP4, tcp4));  // version 1 in a v2 header
        refused(v2(0x22, TCP4, tcp4));  // command 2
        refused(v2(PROXY, 0x41, tcp4));  // family 4
        refused(v2(PROXY, 0x13, tcp4));  // protocol 3
        refused(v2(PROXY, TCP4, new byte[11]));  // IPv4 addresses need 12 bytes
        refused(v2(PROXY, TCP6, tcp4));  // IPv6 addresses need 36
        refused(v2(PROXY, UNIX, new byte[215]));  // AF_UNIX addresses need 216
    }

    // ---- neither

    @Test
    void mqttBytesAreRefusedAtTheFirstByte() {  // a client that connects straight, past the balancer
        var decoder = new ProxyHeaderDecoder();
        var bytes = ByteBuffer.wrap(CONNECT_START);
        assertThrows(ProxyHeaderException.class, () -> decoder.feed(bytes));
        assertEquals(1, bytes.position(), "refused at its first byte");
        assertThrows(ProxyHeaderException.class, () -> decoder.feed(ByteBuffer.wrap(v1("PROXY UNKNOWN\r\n"))), "and stays refused");
    }

    @Test
    void aHeaderIsReadOnce() throws Exception {
        var decoder = new ProxyHeaderDecoder();
        decoder.feed(ByteBuffer.wrap(v1("PROXY UNKNOWN\r\n")));
        assertThrows(IllegalStateException.class, () -> decoder.feed(ByteBuffer.wrap(v1("PROXY UNKNOWN\r\n"))));
    }

    @Test
    void anEmptyChunkNeedsMore() throws Exception {
        assertNull(new ProxyHeaderDecoder().feed(ByteBuffer.allocate(0)));
    }
}
