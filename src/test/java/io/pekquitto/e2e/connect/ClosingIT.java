package io.pekquitto.e2e.connect;

import static io.pekquitto.e2e.RawClient.DISCONNECT;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server closes so that its last packet is read: after a DISCONNECT it shuts down its output and
 * reads on (dropping what comes) until the client closes, for at most a second. A server that closed
 * with the client's bytes still unread would send a reset, and a reset can destroy the DISCONNECT
 * already in the client's receive buffer: the client would never learn why it was disconnected.
 */
class ClosingIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @RepeatedTest(3)
    @Timeout(30)
    @DisplayName("a client still writing when the server disconnects it gets no reset: its writes go on, then it reads the DISCONNECT and end of stream [MQTT-4.13.1-1]")
    void aClientStillWritingReadsItsDisconnect() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("writer")))) {
            // A malformed PUBLISH (QoS 3), then PINGREQs for 300 ms without reading, as a client busy
            // publishing would: the DISCONNECT waits in its receive buffer meanwhile.
            client.send(new byte[] {0x36, 6, 0, 1, 'a', 0, 1, 0});
            var writeError = keepWriting(client, Duration.ofMillis(300));
            assertEquals(null, writeError, "the server reset the connection under a client still writing");
            var disconnect = client.expect(DISCONNECT, Duration.ofSeconds(5));
            assertEquals("0x81", RawClient.hex(disconnect.disconnectReason()), "Malformed Packet");
            var closedAfter = client.expectClosed(Duration.ofSeconds(5));
            assertTrue(closedAfter.compareTo(Duration.ofSeconds(3)) < 0, "closed after " + closedAfter);
        }
    }

    /** PINGREQs, 16 KiB at a time, for {@code duration}; the error that stopped them early, or null. */
    private static IOException keepWriting(RawClient client, Duration duration) {
        var chunk = new byte[16 * 1024];
        for (int i = 0; i < chunk.length; i += 2) chunk[i] = (byte) 0xC0;
        long end = System.nanoTime() + duration.toNanos();
        try {
            while (System.nanoTime() < end) client.send(chunk);
            return null;
        } catch (IOException e) {
            return e;  // a broken pipe or a reset, as a Paho client saw it
        }
    }
}
