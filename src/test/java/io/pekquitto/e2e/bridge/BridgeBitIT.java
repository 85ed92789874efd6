package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.RawClient.V311;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.ConnectionLogLines;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client whose CONNECT has the bridge bit, protocol level 0x84 (3.1.1) as Mosquitto's bridges send it with
 * {@code try_private}, over a plain socket: it is not sent what it published itself (No Local) and gets the
 * retain flag as published (Retain As Published), where a plain 3.1.1 client gets neither.
 */
class BridgeBitIT {
    /** Protocol level 4 with the top bit set. */
    private static final int BRIDGE_V311 = 0x84;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @RegisterExtension
    final ConnectionLogLines log = new ConnectionLogLines();

    /** Subscribes {@code client} to {@code filter} at QoS 1 and asserts it is granted. */
    private static void subscribe(RawClient client, String filter) throws IOException {
        client.send(RawClient.subscribe(V311, 1, new Filter(filter, 1)));
        assertEquals(List.of(1), client.expect(RawClient.SUBACK).ackReasons(V311));
    }

    /** The next PUBLISH to {@code client}, acknowledged if it is QoS 1. */
    private static RawClient.Publish received(RawClient client) throws IOException {
        var publish = client.expect(RawClient.PUBLISH).publish(V311);
        if (publish.qos() == 1) client.send(RawClient.ack(RawClient.PUBACK, publish.packetId()));
        return publish;
    }

    @Test
    @DisplayName("a client connected with level 0x84 is not sent back what it published; a plain client is")
    void aBridgeIsNotSentItsOwnMessages() throws IOException {
        String root = Names.topic("t");
        String bridgeId = Names.clientId("bridge");
        try (var bridge = broker.raw(Connect.of(BRIDGE_V311, bridgeId));
             var plain = broker.raw(Connect.of(V311, Names.clientId("plain")))) {
            log.awaitLine("the bridge's connect line", line -> line.startsWith("New bridge connected") && line.contains(bridgeId));
            subscribe(bridge, root + "/#");
            subscribe(plain, root + "/#");

            bridge.send(RawClient.publish(V311, root + "/x", 1, 1, "from the bridge"));
            assertEquals(1, bridge.expect(RawClient.PUBACK).packetId());
            assertEquals("from the bridge", received(plain).payloadText(), "a plain subscriber gets the bridge's message");

            plain.send(RawClient.publish(V311, root + "/y", 1, 2, "from the plain client"));
            assertEquals(2, plain.expect(RawClient.PUBACK).packetId());
            // Routed after the bridge's own message: had that come back, it would be first.
            assertEquals(root + "/y", received(bridge).topic(), "the bridge was sent its own message");
            assertEquals(root + "/y", received(plain).topic(), "a plain client is sent its own message");
            assertTrue(bridge.readUnlessQuiet(Inbox.QUIET).isEmpty(), "nothing more for the bridge");
        }
    }

    @Test
    @DisplayName("a client connected with level 0x84 gets the retain flag as published; a plain 3.1.1 client does not")
    void aBridgeGetsTheRetainFlagAsPublished() throws IOException {
        String root = Names.topic("t");
        try (var bridge = broker.raw(Connect.of(BRIDGE_V311, Names.clientId("bridge")));
             var plain = broker.raw(Connect.of(V311, Names.clientId("plain")));
             var publisher = broker.raw(Connect.of(V311, Names.clientId("pub")))) {
            subscribe(bridge, root + "/#");
            subscribe(plain, root + "/#");
            publisher.send(RawClient.publish(V311, root + "/r", 1, true, 1, new byte[0],
                    "kept".getBytes(StandardCharsets.UTF_8)));
            assertEquals(1, publisher.expect(RawClient.PUBACK).packetId());
            assertTrue(received(bridge).retain(), "Retain As Published for the bridge");
            assertFalse(received(plain).retain(), "a live message to a 3.1.1 subscriber is not retained (3.3.1.3)");
            publisher.send(RawClient.publish(V311, root + "/r", 1, true, 2, new byte[0], new byte[0]));  // cleared
            assertEquals(2, publisher.expect(RawClient.PUBACK).packetId());
        }
    }

    @Test
    @DisplayName("level 0x85 (the bit on MQTT 5) is refused as an unsupported protocol version [MQTT-3.1.2-2]")
    void theBitOnMqtt5IsRefused() throws IOException {
        try (var client = broker.raw()) {
            client.send(Connect.of(0x85, Names.clientId("v5-bit")).bytes());
            int code = client.expect(RawClient.CONNACK).connAckReason();
            assertTrue(code == 0x01 || code == 0x84, "CONNACK code " + RawClient.hex(code));
            client.expectClosed(RawClient.TIMEOUT);
        }
    }
}
