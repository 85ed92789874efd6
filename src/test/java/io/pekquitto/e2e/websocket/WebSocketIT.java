package io.pekquitto.e2e.websocket;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static io.pekquitto.e2e.websocket.TcpWsWss.TCP;
import static io.pekquitto.e2e.websocket.TcpWsWss.WS;
import static io.pekquitto.e2e.websocket.TcpWsWss.WSS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.e2e.security.SecurityFiles;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MQTT over WebSockets (MQTT 5 chapter 6, MQTT 3.1.1 chapter 6): Paho's WebSocket transport (3.1.1 and
 * 5) over ws and wss exchanging messages with TCP clients, retained messages, wills and sessions as on
 * TCP; the JDK's WebSocket client framing MQTT any way it likes; and the HTTP answers to requests that
 * are not MQTT over WebSockets.
 */
class WebSocketIT {
    private static final SecurityFiles files = SecurityFiles.create("websocket");
    private static final TestCertificates certificates = TestCertificates.create(files.directory());

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess(TcpWsWss.listeners(certificates));

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static int port(int listener) {
        return broker.pekquitto().boundAddresses().get(listener).getPort();
    }

    private static String ws(String path) {
        return "ws://127.0.0.1:" + port(WS) + path;
    }

    private static V3Client v3OverWs(String clientId, boolean cleanSession) throws Exception {
        return V3Client.connect(ws("/mqtt"), clientId, options -> options.setCleanSession(cleanSession));
    }

    @Test
    @DisplayName("Paho 3.1.1 over ws receives QoS 0, 1 and 2 from a TCP client, and publishes to one")
    void pahoV3ExchangesEveryQosWithATcpClient() throws Exception {
        var topic = Names.topic("ws");
        try (var overWs = v3OverWs(Names.clientId("ws"), true);
             var overTcp = broker.v5(Names.clientId("tcp"))) {
            assertEquals(2, overWs.subscribe(topic + "/in", 2));
            assertEquals(1, overTcp.subscribe(topic + "/out", 1));
            for (int qos = 0; qos <= 2; qos++) overTcp.publish(topic + "/in", "to ws at " + qos, qos, false);
            var received = overWs.inbox().next(3, java.time.Duration.ofSeconds(5));
            for (int qos = 0; qos <= 2; qos++) {
                assertEquals("to ws at " + qos, received.get(qos).text());
                assertEquals(qos, received.get(qos).qos());
            }
            overWs.publish(topic + "/out", "from ws", 1, false);
            assertEquals("from ws", overTcp.inbox().next().text());
        }
    }

    @Test
    @DisplayName("Paho 5 over ws gets a retained message a TCP client left")
    void pahoV5GetsRetainedMessages() throws Exception {
        var topic = Names.topic("ws-retained");
        try (var overTcp = broker.v5(Names.clientId("tcp"))) {
            overTcp.publish(topic, "kept", 1, true);
        }
        try (var overWs = V5Client.connect(ws("/mqtt"), Names.clientId("ws5"), options -> {})) {
            overWs.subscribe(topic, 1);
            var message = overWs.inbox().next();
            assertEquals("kept", message.text());
            assertTrue(message.retained());
        }
    }

    @Test
    @DisplayName("a session over ws resumes: what was published while the client was away arrives after it reconnects")
    void sessionResumes() throws Exception {
        var topic = Names.topic("ws-session");
        var clientId = Names.clientId("ws-session");
        try (var first = v3OverWs(clientId, false)) {
            first.subscribe(topic, 1);
            first.disconnect();
        }
        try (var overTcp = broker.v5(Names.clientId("tcp"))) {
            overTcp.publish(topic, "while away", 1, false);
        }
        try (var again = v3OverWs(clientId, false)) {
            assertTrue(again.sessionPresent());
            assertEquals("while away", again.inbox().next().text());
        }
    }

    @Test
    @DisplayName("a client over ws that loses its connection has its will published")
    void willOnAbruptClose() throws Exception {
        var topic = Names.topic("ws-will");
        try (var overTcp = broker.v5(Names.clientId("tcp"))) {
            overTcp.subscribe(topic, 1);
            var overWs = V3Client.connect(ws("/mqtt"), Names.clientId("ws-will"),
                    options -> options.setWill(topic, "gone".getBytes(StandardCharsets.UTF_8), 1, false));
            overWs.dropConnection();
            assertEquals("gone", overTcp.inbox().next().text());
            overWs.close();
        }
    }

    @Test
    @DisplayName("MQTT bytes framed any way: a CONNECT over three messages, two packets in one, a packet in fragments")
    void framesMeanNothingToMqtt() throws Exception {
        var topic = Names.topic("frames");
        try (var client = WebSocketClient.open(ws("/mqtt"), "mqtt")) {
            assertEquals("mqtt", client.subprotocol());
            var connect = RawClient.Connect.of(V5, Names.clientId("frames")).bytes();
            client.send(Arrays.copyOfRange(connect, 0, 1));
            client.send(Arrays.copyOfRange(connect, 1, 6));
            client.send(Arrays.copyOfRange(connect, 6, connect.length));
            assertEquals(List.of(CONNACK), client.nextTypes(1));

            var subscribe = RawClient.subscribe(V5, 1, new RawClient.Filter(topic, 0));
            var publish = RawClient.publish(V5, topic, 0, 0, "one frame");
            client.send(concat(subscribe, publish));
            assertEquals(SUBACK, client.nextTypes(1).get(0));
            var delivered = client.nextPacket();
            assertEquals(PUBLISH, (delivered[0] & 0xF0) >> 4);
            assertTrue(new String(delivered, StandardCharsets.UTF_8).endsWith("one frame"));

            var ping = RawClient.pingReq();
            client.sendFragmented(concat(ping, publish, ping), 1, 3, 7);
            // The PINGRESPs come straight back, the PUBLISH by way of the routing: in any order.
            var types = client.nextTypes(3);
            types.sort(null);
            assertEquals(List.of(PUBLISH, PINGRESP, PINGRESP), types);
        }
    }

    @Test
    @DisplayName("a text message closes the connection [MQTT-6.0.0-1]")
    void textMessageCloses() throws Exception {
        try (var client = WebSocketClient.open(ws("/mqtt"), "mqtt")) {
            client.send(RawClient.Connect.of(V311, Names.clientId("text")).bytes());
            assertEquals(List.of(CONNACK), client.nextTypes(1));
            client.sendText("not MQTT");
            assertEquals("close frame 1000", client.awaitClosed());
        }
        broker.assertServesQos1(V5);
    }

    @Test
    @DisplayName("MQTT 3.1 clients' subprotocol mqttv3.1 is accepted too")
    void mqtt31Subprotocol() {
        try (var client = WebSocketClient.open(ws("/mqtt"), "mqttv3.1")) {
            assertEquals("mqttv3.1", client.subprotocol());
        }
    }

    @Test
    @DisplayName("HTTP errors: no mqtt subprotocol 400, no upgrade 426, another path 404")
    void requestsThatAreNotMqttOverWebSockets() throws Exception {
        assertEquals(400, refusal(() -> WebSocketClient.open(ws("/mqtt"), "chat")));
        assertEquals(400, refusal(() -> WebSocketClient.open(ws("/mqtt"))));

        var http = HttpClient.newHttpClient();
        var plain = http.send(HttpRequest.newBuilder(URI.create(ws("/mqtt").replace("ws:", "http:"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(426, plain.statusCode());
        assertEquals(Optional.of("websocket"), plain.headers().firstValue("Upgrade"));
        var elsewhere = http.send(HttpRequest.newBuilder(URI.create(ws("/other").replace("ws:", "http:"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, elsewhere.statusCode());
        assertEquals(404, refusal(() -> WebSocketClient.open(ws("/other"), "mqtt")));
    }

    /** The HTTP status of a refused WebSocket handshake. */
    private static int refusal(org.junit.jupiter.api.function.Executable open) {
        var failure = assertThrows(CompletionException.class, open);
        var handshake = assertInstanceOf(WebSocketHandshakeException.class, failure.getCause(), failure::toString);
        return handshake.getResponse().statusCode();
    }

    @Test
    @DisplayName("Paho 5 over wss (a certificate the client trusts) exchanges messages with a TCP client")
    void pahoV5OverWss() throws Exception {
        var topic = Names.topic("wss");
        var ssl = certificates.clientContext(Optional.empty());
        try (var overWss = V5Client.connect("wss://127.0.0.1:" + port(WSS) + "/mqtt", Names.clientId("wss"),
                     options -> options.setSocketFactory(ssl.getSocketFactory()));
             var overTcp = broker.v5(Names.clientId("tcp"))) {
            overWss.subscribe(topic, 2);
            overTcp.publish(topic, "encrypted", 2, false);
            var message = overWss.inbox().next();
            assertEquals("encrypted", message.text());
            assertEquals(2, message.qos());
        }
    }

    private static byte[] concat(byte[]... parts) {
        var out = new java.io.ByteArrayOutputStream();
        for (var part : parts) out.writeBytes(part);
        return out.toByteArray();
    }
}
