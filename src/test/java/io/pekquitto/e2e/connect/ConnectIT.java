package io.pekquitto.e2e.connect;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** CONNECT and CONNACK, the first-packet rules, PINGREQ, keep-alive and client id takeover (MQTT 3.1.1 and 5.0 section 3.1, 3.2, 3.12). */
class ConnectIT {
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    // ---- CONNACK

    @Test
    @Timeout(10)
    @DisplayName("3.1.1: CONNECT with Clean Session 1 is answered by CONNACK 20 02 00 00 [MQTT-3.2.0-1] [MQTT-3.2.2-1] [MQTT-3.1.4-4]")
    void connAckSuccessFor311() throws IOException {
        try (var client = broker.raw()) {
            client.send(Connect.of(V311, Names.clientId("ok3")).bytes());
            var connAck = client.expect(CONNACK);
            assertArrayEquals(new byte[] {0x00, 0x00}, connAck.body(), "Session Present 0, return code 0 (accepted)");
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: CONNECT with Clean Start 1 is answered by CONNACK Success, Session Present 0 [MQTT-3.2.0-1] [MQTT-3.2.2-2] [MQTT-3.1.4-5]")
    void connAckSuccessFor5() throws IOException {
        try (var client = broker.raw()) {
            client.send(Connect.of(V5, Names.clientId("ok5")).bytes());
            var connAck = client.expect(CONNACK);
            assertFalse(connAck.sessionPresent());
            assertEquals(0x00, connAck.connAckReason());
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("Paho 3.1.1 and HiveMQ 5.0 clients connect [MQTT-3.1.4-4] [MQTT-3.1.4-5]")
    void realClientsConnect() throws Exception {
        try (var paho = broker.v3(Names.clientId("paho3"))) {
            assertTrue(paho.paho().isConnected());
            assertFalse(paho.sessionPresent());
        }
        var hive = MqttClient.builder().useMqttVersion5().identifier(Names.clientId("hive5"))
                .serverHost("127.0.0.1").serverPort(broker.port()).buildBlocking();
        var connAck = hive.connect();
        try {
            assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, connAck.getReasonCode());
            assertFalse(connAck.isSessionPresent());
        } finally {
            hive.disconnect();
        }
    }

    // ---- client identifiers

    @Test
    @Timeout(10)
    @DisplayName("3.1.1: an empty client id with Clean Session 0 gets CONNACK 0x02 (identifier rejected), then the connection closes [MQTT-3.1.3-8]")
    void emptyClientIdWithCleanSession0IsRejectedIn311() throws IOException {
        try (var client = broker.raw()) {
            client.send(Connect.of(V311, "").withCleanStart(false).bytes());
            var connAck = client.expect(CONNACK);
            assertEquals(0x02, connAck.connAckReason(), "return code 0x02 Identifier rejected");
            assertFalse(connAck.sessionPresent(), "Session Present 0 with a non-zero return code [MQTT-3.2.2-4]");
            client.expectClosed(CLOSE_WAIT);  // [MQTT-3.2.2-5]
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: an empty client id is accepted with an Assigned Client Identifier, new for each connection [MQTT-3.2.2-16]")
    void emptyClientIdGetsAnAssignedClientIdentifierIn5() throws IOException {
        try (var first = broker.raw(); var second = broker.raw()) {
            first.send(Connect.of(V5, "").bytes());
            second.send(Connect.of(V5, "").bytes());
            var firstAck = first.expect(CONNACK);
            var secondAck = second.expect(CONNACK);
            assertEquals(0x00, firstAck.connAckReason());
            assertEquals(0x00, secondAck.connAckReason());
            var firstId = (String) firstAck.connAckProperties().get(0x12);    // 0x12 Assigned Client Identifier
            var secondId = (String) secondAck.connAckProperties().get(0x12);
            assertTrue(firstId != null && !firstId.isEmpty(), "Assigned Client Identifier in " + firstAck);
            assertTrue(secondId != null && !secondId.isEmpty(), "Assigned Client Identifier in " + secondAck);
            assertNotEquals(firstId, secondId, "an Assigned Client Identifier is not used by any other session");
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: a CONNECT with an unsupported Authentication Method gets CONNACK 0x8C, then the connection closes [MQTT-4.12.0-1]")
    void unsupportedAuthenticationMethodIsRefused() throws IOException {
        // [MQTT-4.12.0-1] allows 0x8C (Bad authentication method) or 0x87; the broker promises 0x8C.
        var properties = new RawClient.Bytes()
                .u8(0x15).string("SCRAM-SHA-1")      // Authentication Method
                .toByteArray();
        try (var client = broker.raw()) {
            client.send(Connect.of(V5, Names.clientId("auth")).withProperties(properties).bytes());
            var connAck = client.expect(CONNACK);
            assertEquals("0x8C", RawClient.hex(connAck.connAckReason()));
            assertFalse(connAck.sessionPresent(), "Session Present 0 with a failure [MQTT-3.2.2-6]");
            client.expectClosed(CLOSE_WAIT);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(10)
    @DisplayName("a CONNECT with the reserved flag set is refused and the connection closed (3.1.1: no CONNACK; 5.0: at most CONNACK 0x81) [MQTT-3.1.2-3] [MQTT-3.1.4-1]")
    void reservedConnectFlagIsRefused(int version) throws IOException {
        byte[] connect = Connect.of(version, Names.clientId("reserved")).bytes();
        connect[9] |= 0x01;   // Connect Flags: after the fixed header (2), "MQTT" (6) and the level (1)
        try (var client = broker.raw()) {
            client.send(connect);
            if (version == V5) expectOptionalConnAckThenClose(client, 0x81);
            else client.expectClosed(CLOSE_WAIT);
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("an unsupported Protocol Level gets CONNACK 0x01 (3.1.1) or 0x84 (5.0), then the connection closes [MQTT-3.1.2-2]")
    void unsupportedProtocolLevelIsRefused() throws IOException {
        var body = new RawClient.Bytes()
                .string("MQTT").u8(6)                  // Protocol Name, Protocol Level 6
                .u8(0x02).u16(60)                      // Clean Start, Keep Alive
                .u8(0)                                 // (as if 5.0) property length 0
                .string(Names.clientId("level6"))      // Client Identifier
                .toByteArray();
        try (var client = broker.raw()) {
            client.send(RawClient.packet(0x10, body));
            var connAck = client.expect(CONNACK);
            int code = connAck.connAckReason();
            assertTrue(code == 0x01 || code == 0x84, "CONNACK code " + RawClient.hex(code));
            client.expectClosed(CLOSE_WAIT);
        }
    }

    /** MQTT 5 allows a CONNACK with a failure before closing (4.13.1); if one comes, it has this code. */
    private static void expectOptionalConnAckThenClose(RawClient client, int reasonCode) throws IOException {
        var packet = client.readOrClosed(CLOSE_WAIT);
        if (packet.isPresent()) {
            assertEquals(CONNACK, packet.get().type(), () -> "expected at most a CONNACK, got " + packet.get());
            assertEquals(RawClient.hex(reasonCode), RawClient.hex(packet.get().connAckReason()));
            client.expectClosed(CLOSE_WAIT);
        }
    }

    // ---- first packet and second CONNECT

    @Test
    @Timeout(10)
    @DisplayName("a packet other than CONNECT first closes the connection without CONNACK [MQTT-3.1.0-1] [MQTT-3.1.4-1]")
    void firstPacketMustBeConnect() throws IOException {
        try (var client = broker.raw()) {
            client.send(RawClient.pingReq());
            client.expectClosed(CLOSE_WAIT);
        }
        try (var client = broker.raw()) {
            client.send(RawClient.publish(V311, "a/b", 0, 0, "before connect"));
            client.expectClosed(CLOSE_WAIT);
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("3.1.1: a second CONNECT closes the connection [MQTT-3.1.0-2]")
    void secondConnectClosesIn311() throws IOException {
        var connect = Connect.of(V311, Names.clientId("twice3"));
        try (var client = broker.raw(connect)) {
            client.send(connect.bytes());
            client.expectClosed(CLOSE_WAIT);
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: a second CONNECT gets DISCONNECT 0x82 (Protocol Error), then the connection closes [MQTT-3.1.0-2]")
    void secondConnectIsAProtocolErrorIn5() throws IOException {
        var connect = Connect.of(V5, Names.clientId("twice5"));
        try (var client = broker.raw(connect)) {
            client.send(connect.bytes());
            client.expectDisconnect(0x82, CLOSE_WAIT);
        }
    }

    // ---- PINGREQ and keep-alive

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(10)
    @DisplayName("PINGREQ is answered by PINGRESP D0 00 [MQTT-3.12.4-1]")
    void pingReqGetsPingResp(int version) throws IOException {
        try (var client = broker.raw(Connect.of(version, Names.clientId("ping")))) {
            for (int i = 0; i < 3; i++) {
                client.send(RawClient.pingReq());
                var pingResp = client.expect(PINGRESP);
                assertEquals(0xD0, pingResp.header());
                assertEquals(0, pingResp.body().length);
            }
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a client silent for 1.5 times its 1 s Keep Alive is disconnected (5.0: DISCONNECT 0x8D first) [MQTT-3.1.2-24 (3.1.1)] [MQTT-3.1.2-22 (5.0)]")
    void silentClientIsDisconnectedAfterOneAndAHalfKeepAlives(int version) throws IOException {
        try (var client = broker.raw()) {
            long start = System.nanoTime();
            client.send(Connect.of(version, Names.clientId("silent")).withKeepAlive(1).bytes());
            assertEquals(0, client.expect(CONNACK).connAckReason());
            if (version == V5) {
                var disconnect = client.expect(RawClient.DISCONNECT, Duration.ofSeconds(4));
                assertEquals("0x8D", RawClient.hex(disconnect.disconnectReason()), "Keep Alive timeout");
            }
            client.expectClosed(Duration.ofSeconds(4));
            var silence = Duration.ofNanos(System.nanoTime() - start);
            // The client may stay silent for the whole Keep Alive (3.1.2.10); the server must act by 1.5 s.
            assertTrue(silence.compareTo(Duration.ofMillis(1_000)) >= 0, "disconnected too early, after " + silence);
            assertTrue(silence.compareTo(Duration.ofMillis(3_000)) <= 0, "disconnected too late, after " + silence);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a client that pings every 0.5 s within its 1 s Keep Alive stays connected for 3 s [MQTT-3.1.2-24 (3.1.1)] [MQTT-3.1.2-22 (5.0)]")
    void pingingClientStaysConnected(int version) throws IOException, InterruptedException {
        try (var client = broker.raw(Connect.of(version, Names.clientId("pinger")).withKeepAlive(1))) {
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < end) {  // no cap on the pings: the loop covers the whole 3 s
                Thread.sleep(500);
                client.send(RawClient.pingReq());
                client.expect(PINGRESP, Duration.ofSeconds(2));
            }
            // Past 3 s the connection is still open (the last ping was under 0.5 s ago: well within 1.5 s).
            client.expectSilence(Duration.ofMillis(400));
        }
    }

    // ---- takeover

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a second connection with the same client id closes the first (5.0: DISCONNECT 0x8E); the second keeps working [MQTT-3.1.4-2 (3.1.1)] [MQTT-3.1.4-3 (5.0)]")
    void sameClientIdTakesOver(int version) throws IOException {
        String clientId = Names.clientId("takeover");
        try (var first = broker.raw(Connect.of(version, clientId));
             var second = broker.raw(Connect.of(version, clientId))) {
            if (version == V5) {
                first.expectDisconnect(0x8E, CLOSE_WAIT);  // Session taken over
            } else {
                first.expectClosed(CLOSE_WAIT);
            }
            second.send(RawClient.pingReq());
            second.expect(PINGRESP);
            // A QoS 1 round trip through its own subscription.
            String topic = Names.topic("takeover");
            second.send(RawClient.subscribe(version, 1, new Filter(topic, 1)));
            assertEquals(1, second.expect(SUBACK).packetId());
            second.send(RawClient.publish(version, topic, 1, 2, "still here"));
            boolean acked = false;
            boolean delivered = false;
            for (int i = 0; i < 4 && !(acked && delivered); i++) {
                var packet = second.read();
                if (packet.type() == PUBACK) {
                    assertEquals(2, packet.packetId());
                    acked = true;
                } else if (packet.type() == PUBLISH) {
                    var publish = packet.publish(version);
                    assertEquals("still here", publish.payloadText());
                    second.send(RawClient.ack(PUBACK, publish.packetId()));
                    delivered = true;
                }
            }
            assertTrue(acked, "PUBACK for the PUBLISH");
            assertTrue(delivered, "the PUBLISH came back through the subscription");
        }
    }
}
