package io.pekquitto.e2e.websocket;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Will;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Before its CONNECT, a WebSocket client is held to the bounds a TCP client is: its bytes reach the
 * connection as they arrive, whatever frame they are in, so a frame that announces far more than
 * {@code max-connect-size} cannot make the broker wait for (and hold) all of it, and a partial CONNECT
 * counts against the shard's {@code partial-packet-budget} as it arrives, TCP and WebSocket clients alike.
 * The connect timeout (10 s) would close each of them: every refusal here comes in less.
 */
class WebSocketPreConnectIT {
    /** A CONNECT's will: within max-connect-size (16 KiB); two thirds of two such CONNECTs take the shard past its budget. */
    private static final int WILL = 14 * 1024;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("""
            shards = 1
            partial-packet-budget = 16KiB
            listeners = [ { host = "127.0.0.1", port = 0 }, { host = "127.0.0.1", port = 0, protocol = websocket } ]
            """);

    private static int webSocketPort() {
        return broker.pekquitto().boundAddresses().get(1).getPort();
    }

    @Test
    @DisplayName("a CONNECT announcing 256 MiB inside a frame announcing 512 KiB is refused at its length, as on TCP")
    void aHugeConnectInALargeFrameIsRefusedBeforeTheFrameEnds() throws Exception {
        try (var client = RawWebSocket.upgraded(webSocketPort())) {
            client.announce(512 * 1024);  // within max-packet-size (1 MiB): the frame itself is allowed
            long started = System.nanoTime();
            client.send(new byte[] {0x10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F});  // CONNECT, 256 MiB - 1 announced
            client.readUntilClosed();
            var waited = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(waited.compareTo(Duration.ofSeconds(2)) < 0, "closed after " + waited + ", not after the connect timeout");
        }
        broker.assertServesQos1(V5);
    }

    @Test
    @DisplayName("a partial CONNECT in a WebSocket frame counts against the shard's budget: a TCP client past it is refused")
    void aPartialConnectInAFrameCountsAgainstThePartialPacketBudget() throws Exception {
        var held = connectWithWill("ws-held");
        int part = held.length * 2 / 3;
        try (var webSocket = RawWebSocket.upgraded(webSocketPort()); var tcp = broker.raw()) {
            webSocket.announce(held.length);  // the whole CONNECT's frame, of which two thirds come for now
            webSocket.send(Arrays.copyOfRange(held, 0, part));
            webSocket.expectSilence(Duration.ofMillis(200));  // within the budget: the broker waits for the rest
            tcp.send(Arrays.copyOfRange(connectWithWill("tcp-refused"), 0, part));
            tcp.expectClosed(Duration.ofSeconds(5));
            webSocket.send(Arrays.copyOfRange(held, part, held.length));
            var connAck = webSocket.nextBinary();
            assertEquals(CONNACK << 4, connAck[0] & 0xF0);
            assertEquals(0, connAck[3], "the client within the budget is served");
        }
    }

    @Test
    @DisplayName("a partial CONNECT in a WebSocket frame past the shard's budget is refused as a TCP client's is")
    void aPartialConnectInAFramePastTheBudgetIsRefused() throws Exception {
        var refused = connectWithWill("ws-refused");
        int part = refused.length * 2 / 3;
        try (var tcp = broker.raw(); var webSocket = RawWebSocket.upgraded(webSocketPort())) {
            tcp.send(Arrays.copyOfRange(connectWithWill("tcp-held"), 0, part));
            tcp.expectSilence(Duration.ofMillis(200));  // within the budget: the broker waits for the rest
            webSocket.announce(refused.length);
            long started = System.nanoTime();
            webSocket.send(Arrays.copyOfRange(refused, 0, part));
            assertEquals(0, webSocket.readUntilClosed().length, "closed without a CONNACK, as a TCP client is");
            var waited = Duration.ofNanos(System.nanoTime() - started);
            assertTrue(waited.compareTo(Duration.ofSeconds(3)) < 0, "closed after " + waited + ", not after the connect timeout");
        }
    }

    private static byte[] connectWithWill(String name) {
        return Connect.of(V5, Names.clientId(name)).withWill(new Will(Names.topic("will"), new byte[WILL], 0, false)).bytes();
    }
}
