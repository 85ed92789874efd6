package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.Security;
import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.ConnectionLogLines;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PROXY protocol headers written by hand (HAProxy's proxy-protocol.txt) on raw sockets: on a listener
 * with {@code proxy-protocol}, the address in a v1 or v2 header is the client's in the connection log
 * and in the ACLs' view of the client (an authorizer that lets a client write only under its own
 * address), also over TLS, where the header comes before the handshake; a connection with no header, a
 * malformed one or one cut short is closed unanswered; and on a listener without the setting, a header
 * is a bad first packet.
 */
@Timeout(60)
class ProxyProtocolIT {
    private static final SecurityFiles files = SecurityFiles.create("proxy");
    private static final TestCertificates certificates = TestCertificates.create(files.directory());
    private static final int PROXIED = 0;
    private static final int PLAIN = 1;
    private static final int PROXIED_TLS = 2;

    /** Writes to {@code from/ADDRESS} only, ADDRESS the client's as the ACLs see it. */
    private static final Authorizer OWN_ADDRESS_ONLY = new Authorizer() {
        @Override
        public boolean canPublish(ClientIdentity client, String topic) {
            return topic.equals("from/" + client.address().getAddress().getHostAddress());
        }

        @Override
        public boolean canSubscribe(ClientIdentity client, String filter) {
            return true;
        }
    };

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension("""
            connect-timeout = 1s
            listeners = [
              { host = "127.0.0.1", port = 0, proxy-protocol = true }
              { host = "127.0.0.1", port = 0 }
              { host = "127.0.0.1", port = 0, proxy-protocol = true, tls { cert-file = %s, key-file = %s } }
            ]
            """.formatted(SecurityFiles.quoted(certificates.server().certificateFile()),
                    SecurityFiles.quoted(certificates.server().keyFile()))) {
        @Override
        protected Pekquitto startInProcess(BrokerSettings settings) {
            return Pekquitto.start(settings, new Security(credentials -> Authentication.allowed(credentials.username()),
                    OWN_ADDRESS_ONLY));
        }
    };

    @RegisterExtension
    final ConnectionLogLines log = new ConnectionLogLines();

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    // ---- headers, field by field (proxy-protocol.txt 2.1 and 2.2)

    private static byte[] v1(String line) {
        return line.getBytes(StandardCharsets.US_ASCII);
    }

    /** Signature, version 2 and command, family and protocol, length, source and destination, ports, TLVs. */
    private static byte[] v2(int versionCommand, int familyProtocol, byte[] source, byte[] destination, int sourcePort,
                             byte[] tlvs) {
        var body = new ByteArrayOutputStream();
        body.writeBytes(source);
        body.writeBytes(destination);
        body.write(sourcePort >> 8);
        body.write(sourcePort & 0xFF);
        body.write(1883 >> 8);
        body.write(1883 & 0xFF);
        body.writeBytes(tlvs);
        var header = new ByteArrayOutputStream();
        header.writeBytes(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        header.write(versionCommand);
        header.write(familyProtocol);
        header.write(body.size() >> 8);
        header.write(body.size() & 0xFF);
        header.writeBytes(body.toByteArray());
        return header.toByteArray();
    }

    private static int port(int listener) {
        return broker.pekquitto().boundAddresses().get(listener).getPort();
    }

    private static byte[] connect(String clientId) {
        return RawClient.Connect.of(V5, clientId).bytes();
    }

    /** Sends the CONNECT (after whatever was sent) and asserts CONNACK Success. */
    private static void assertConnected(RawClient client, String clientId) throws IOException {
        client.send(connect(clientId));
        assertEquals(0, client.expect(CONNACK).connAckReason());
    }

    /** Publishes QoS 1 to {@code from/ADDRESS}: PUBACK 0 if the ACLs see the client at ADDRESS, else 0x87. */
    private static int publishFrom(RawClient client, String address, int packetId) throws IOException {
        client.send(RawClient.publish(V5, "from/" + address, 1, packetId, "hello"));
        var pubAck = client.expect(PUBACK);
        return pubAck.body().length > 2 ? pubAck.body()[2] & 0xFF : 0;
    }

    /** Waits for the connection log's line of {@code clientId}'s connect and returns it. */
    private String connectLine(String clientId) {
        return log.awaitLine("the connect line of " + clientId,
                text -> text.startsWith("New client connected") && text.contains(" as " + clientId + " "));
    }

    @Test
    @DisplayName("v1: the header's address is the client's in the connection log and to the ACLs")
    void aV1HeaderNamesTheClient() throws Exception {
        var clientId = Names.clientId("v1");
        try (var client = RawClient.open(port(PROXIED))) {
            client.send(v1("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n"), connect(clientId));  // one write
            assertEquals(0, client.expect(CONNACK).connAckReason());
            assertEquals("New client connected from 192.0.2.7:51234 as " + clientId + " (p5, c1, k60).", connectLine(clientId));
            assertEquals(0x00, publishFrom(client, "192.0.2.7", 1), "the ACLs see the header's address");
            assertEquals(0x87, publishFrom(client, "127.0.0.1", 2), "not the socket's");
        }
    }

    @Test
    @DisplayName("v2 over IPv6, split across writes with a TLV: the header's address in the log and to the ACLs")
    void aV2HeaderNamesTheClient() throws Exception {
        var clientId = Names.clientId("v2");
        var source = InetAddress.getByName("2001:db8::7");
        var header = v2(0x21, 0x21, source.getAddress(), InetAddress.getByName("2001:db8::1").getAddress(), 443,
                new byte[] {0x04, 0x00, 0x02, 'h', 'i'});  // a NOOP TLV, skipped
        try (var client = RawClient.open(port(PROXIED))) {
            client.send(java.util.Arrays.copyOfRange(header, 0, 10));
            client.send(java.util.Arrays.copyOfRange(header, 10, header.length), connect(clientId));
            assertEquals(0, client.expect(CONNACK).connAckReason());
            var expected = new InetSocketAddress(source, 443);
            assertEquals("New client connected from " + expected.getHostString() + ":443 as " + clientId + " (p5, c1, k60).",
                    connectLine(clientId));
            assertEquals(0x00, publishFrom(client, source.getHostAddress(), 1));
        }
    }

    @Test
    @DisplayName("v2 LOCAL and v1 UNKNOWN keep the socket's own address")
    void localAndUnknownKeepTheSocketsAddress() throws Exception {
        var local = Names.clientId("local");
        var unknown = Names.clientId("unknown");
        try (var viaLocal = RawClient.open(port(PROXIED));
             var viaUnknown = RawClient.open(port(PROXIED))) {
            viaLocal.send(v2(0x20, 0x00, new byte[0], new byte[0], 0, new byte[0]));
            viaLocal.expectSilence(Duration.ofMillis(100));  // the header alone: nothing to answer yet
            assertConnected(viaLocal, local);
            viaUnknown.send(v1("PROXY UNKNOWN\r\n"));
            assertConnected(viaUnknown, unknown);
            assertEquals(true, connectLine(local).startsWith("New client connected from 127.0.0.1:"), connectLine(local));
            assertEquals(true, connectLine(unknown).startsWith("New client connected from 127.0.0.1:"), connectLine(unknown));
            assertEquals(0x00, publishFrom(viaLocal, "127.0.0.1", 1));
        }
    }

    @Test
    @DisplayName("over TLS: the header comes before the handshake, and its address is the client's")
    void aHeaderBeforeTls() throws Exception {
        var clientId = Names.clientId("tls");
        var tcp = new Socket("127.0.0.1", port(PROXIED_TLS));
        tcp.getOutputStream().write(v1("PROXY TCP4 192.0.2.9 198.51.100.1 40001 8883\r\n"));
        var context = SSLContext.getInstance("TLS");
        context.init(null, TlsClients.trusting(certificates.ca().certificate()).getTrustManagers(), null);
        var tls = (SSLSocket) context.getSocketFactory().createSocket(tcp, "127.0.0.1", tcp.getPort(), true);
        tls.startHandshake();
        try (var client = RawClient.over(tls)) {
            assertConnected(client, clientId);
            assertEquals("New client connected from 192.0.2.9:40001 as " + clientId + " (p5, c1, k60).", connectLine(clientId));
            assertEquals(0x00, publishFrom(client, "192.0.2.9", 1));
        }
    }

    @Test
    @DisplayName("no header: a CONNECT straight to a proxy-protocol listener is closed unanswered")
    void aMissingHeaderIsRefused() throws Exception {
        try (var client = RawClient.open(port(PROXIED))) {
            client.send(connect(Names.clientId("straight")));
            client.expectClosed(RawClient.TIMEOUT);
        }
    }

    @Test
    @DisplayName("malformed headers (v1 and v2) are closed unanswered")
    void malformedHeadersAreRefused() throws Exception {
        var tcp4 = v2(0x21, 0x11, new byte[] {(byte) 192, 0, 2, 7}, new byte[] {10, 0, 0, 1}, 1, new byte[0]);
        var badSignature = tcp4.clone();
        badSignature[7] = 'X';  // "QUIT" misspelt
        var tooLong = tcp4.clone();
        tooLong[14] = 0x10;  // 4 KiB of addresses announced: over the bound
        for (var header : new byte[][] {v1("PROXY TCP4 192.0.2.256 198.51.100.1 51234 1883\r\n"),
                v1("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\n"), v1("PROXY " + "x".repeat(120)), badSignature, tooLong}) {
            try (var client = RawClient.open(port(PROXIED))) {
                try {
                    client.send(header, connect(Names.clientId("malformed")));
                } catch (IOException cut) {
                    // the broker may have cut it while the test was still writing
                }
                client.expectClosed(RawClient.TIMEOUT);
            }
        }
    }

    @Test
    @DisplayName("a header cut short is closed after connect-timeout")
    void anUnfinishedHeaderIsClosedAtTheConnectTimeout() throws Exception {
        try (var client = RawClient.open(port(PROXIED))) {
            client.send(v1("PROXY TCP4 192.0.2.7 "));
            var closedAfter = client.expectClosed(Duration.ofSeconds(5));
            assertEquals(true, closedAfter.compareTo(Duration.ofMillis(500)) > 0, "not before the timeout: " + closedAfter);
        }
    }

    @Test
    @DisplayName("on a listener without proxy-protocol, a v1 or v2 header is a bad first packet: closed, no CONNACK")
    void anUnexpectedHeaderIsRefused() throws Exception {
        var header = v2(0x21, 0x11, new byte[] {(byte) 192, 0, 2, 7}, new byte[] {10, 0, 0, 1}, 1, new byte[0]);
        for (var first : new byte[][] {v1("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n"), header}) {
            try (var client = RawClient.open(port(PLAIN))) {
                try {
                    client.send(first, connect(Names.clientId("unexpected")));
                } catch (IOException cut) {
                    // cut at the header's first byte, maybe before the CONNECT went out
                }
                client.expectClosed(RawClient.TIMEOUT);
            }
        }
        try (var client = RawClient.open(port(PLAIN))) {
            assertConnected(client, Names.clientId("plain"));  // the listener itself serves
        }
    }
}
