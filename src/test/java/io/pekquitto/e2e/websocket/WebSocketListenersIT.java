package io.pekquitto.e2e.websocket;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.ConnectionLogLines;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A WebSocket listener's own settings hold as a TCP listener's do: the PROXY protocol header (before
 * the HTTP upgrade, written here by a relay as HAProxy's {@code send-proxy} would) names the client in
 * the connection log, and a WebSocket without one is closed; {@code max-connections} refuses one
 * connection over it until one closes; {@code protocol-versions} refuses a CONNECT of another version.
 */
@Timeout(60)
class WebSocketListenersIT {
    private static final int PROXIED = 1;
    private static final int LIMITED = 2;
    private static final int FIVE_ONLY = 3;
    private static final Duration REOPEN_LIMIT = Duration.ofSeconds(10);

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("""
            connect-timeout = 1s
            listeners = [
              { host = "127.0.0.1", port = 0 }
              { host = "127.0.0.1", port = 0, protocol = websocket, proxy-protocol = true }
              { host = "127.0.0.1", port = 0, protocol = websocket, max-connections = 2 }
              { host = "127.0.0.1", port = 0, protocol = websocket, protocol-versions = ["5"] }
            ]
            """);

    @RegisterExtension
    final ConnectionLogLines log = new ConnectionLogLines();

    private static String ws(int listener) {
        return wsAt(broker.pekquitto().boundAddresses().get(listener).getPort());
    }

    private static String wsAt(int port) {
        return "ws://127.0.0.1:" + port + "/mqtt";
    }

    private static WebSocketClient connected(String uri, String clientId) throws InterruptedException {
        var client = WebSocketClient.open(uri, "mqtt");
        client.send(RawClient.Connect.of(V5, clientId).bytes());
        assertEquals(List.of(CONNACK), client.nextTypes(1));
        return client;
    }

    @Test
    @DisplayName("the address in a PROXY header sent before the upgrade is the client's in the connection log")
    void proxyHeaderNamesTheClient() throws Exception {
        var clientId = Names.clientId("ws-proxied");
        var header = "PROXY TCP4 192.0.2.9 127.0.0.1 40000 8080\r\n".getBytes(StandardCharsets.US_ASCII);
        try (var relay = new ProxyRelay(broker.pekquitto().boundAddresses().get(PROXIED).getPort(), header);
             var client = connected(wsAt(relay.port()), clientId)) {
            var line = log.awaitLine("the connect line of " + clientId,
                    text -> text.startsWith("New client connected") && text.contains(" as " + clientId + " "));
            assertTrue(line.contains("192.0.2.9"), line);
        }
    }

    @Test
    @DisplayName("a WebSocket without a PROXY header on a listener that wants one is closed")
    void noProxyHeaderIsClosed() {
        assertThrows(CompletionException.class, () -> WebSocketClient.open(ws(PROXIED), "mqtt"));
    }

    @Test
    @DisplayName("max-connections: one WebSocket over the limit is refused, and served once another has closed")
    void maxConnections() throws Exception {
        var first = connected(ws(LIMITED), Names.clientId("ws-limit-1"));
        try (var second = connected(ws(LIMITED), Names.clientId("ws-limit-2"))) {
            assertThrows(CompletionException.class, () -> WebSocketClient.open(ws(LIMITED), "mqtt"));
            first.abort();
            // The place is given back when the first connection's stream has ended: soon, not at once.
            Eventually.await(REOPEN_LIMIT, "a place after a close", () -> {
                try (var third = connected(ws(LIMITED), Names.clientId("ws-limit-3"))) {
                    return true;
                } catch (CompletionException refused) {
                    return false;
                }
            });
        }
    }

    @Test
    @DisplayName("protocol-versions: a 3.1.1 CONNECT on a listener for MQTT 5 only gets return code 1")
    void protocolVersions() throws Exception {
        try (var client = WebSocketClient.open(ws(FIVE_ONLY), "mqtt")) {
            client.send(RawClient.Connect.of(V311, Names.clientId("ws-v311")).bytes());
            assertArrayEquals(new byte[] {0x20, 0x02, 0x00, 0x01}, client.nextPacket());
        }
    }
}
