package io.pekquitto.e2e.websocket;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.DISCONNECT;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.AwaitParked;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A WebSocket connection's life as on TCP: it parks when quiet and comes back for a message or a
 * packet, and a broker that shuts down tells it so (DISCONNECT 0x8B) before it closes.
 */
class WebSocketLifecycleIT {
    private static final Duration PARK_LIMIT = Duration.ofSeconds(20);

    private Pekquitto broker;

    @AfterEach
    void stop() {
        if (broker != null) broker.close();
    }

    private Pekquitto start(String overrides) {
        broker = Pekquitto.start(BrokerSettings.parse("""
                shards = 1
                listeners = [ { host = "127.0.0.1", port = 0 }, { host = "127.0.0.1", port = 0, protocol = websocket } ]
                """ + overrides));
        return broker;
    }

    private String ws() {
        return "ws://127.0.0.1:" + broker.boundAddresses().get(1).getPort() + "/mqtt";
    }

    private static WebSocketClient connected(String uri, String clientId, String topic) throws InterruptedException {
        var client = WebSocketClient.open(uri, "mqtt");
        client.send(RawClient.Connect.of(V5, clientId).bytes());
        assertEquals(List.of(CONNACK), client.nextTypes(1));
        client.send(RawClient.subscribe(V5, 1, new RawClient.Filter(topic, 0)));
        assertEquals(List.of(SUBACK), client.nextTypes(1));
        return client;
    }

    @Test
    void aQuietWebSocketConnectionParksAndComesBackForAMessageAndAPacket() throws Exception {
        start("parking.idle-grace = 200ms");
        var topic = Names.topic("ws-parked");
        try (var client = connected(ws(), Names.clientId("ws-parked"), topic)) {
            AwaitParked.exactly(broker.counts(), 1, PARK_LIMIT);

            try (var publisher = RawClient.connected(broker.port(), RawClient.Connect.of(V5, Names.clientId("pub")))) {
                publisher.send(RawClient.publish(V5, topic, 0, 0, "wake up"));
                var delivered = client.nextPacket();
                assertEquals(PUBLISH, (delivered[0] & 0xF0) >> 4);
                assertTrue(new String(delivered, StandardCharsets.UTF_8).endsWith("wake up"));
            }
            AwaitParked.exactly(broker.counts(), 1, PARK_LIMIT);
            client.send(RawClient.pingReq());
            assertEquals(List.of(PINGRESP), client.nextTypes(1));
        }
    }

    @Test
    void aShutdownSendsServerShuttingDownOverTheWebSocket() throws Exception {
        start("");
        try (var client = connected(ws(), Names.clientId("ws-shutdown"), Names.topic("ws-shutdown"))) {
            broker.close();
            broker = null;
            var disconnect = client.nextPacket();
            assertEquals(DISCONNECT, (disconnect[0] & 0xF0) >> 4);
            assertEquals(0x8B, disconnect[2] & 0xFF, "reason code Server shutting down");
            // A close frame, or a reset if the broker's actor system is gone before the client's close frame came.
            assertTrue(client.awaitClosed().matches("close frame 1000|error .*Connection reset"));
        }
    }

    @Test
    void aConnectionThatNeverCompletesItsUpgradeIsClosedAfterTheConnectTimeout() throws Exception {
        start("connect-timeout = 1s");
        try (var socket = new Socket("127.0.0.1", broker.boundAddresses().get(1).getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            long started = System.nanoTime();
            // The connection's own connect timeout, as on TCP: its side of the stream ends, without an answer.
            assertEquals(-1, socket.getInputStream().read(), "closed without an answer");
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(5).toNanos());
        }
    }

    @Test
    void aQuietUpgradedConnectionOutlivesTheConnectTimeout() throws Exception {
        start("connect-timeout = 1s\nparking.enabled = false");
        try (var client = connected(ws(), Names.clientId("ws-quiet"), Names.topic("ws-quiet"))) {
            Thread.sleep(2_500);  // quiet for longer than connect-timeout: only MQTT's keep-alive ends an upgraded connection
            client.send(RawClient.pingReq());
            assertEquals(List.of(PINGRESP), client.nextTypes(1));
        }
    }
}
