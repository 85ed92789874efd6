package io.pekquitto.e2e.store;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBCOMP;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.PUBREL;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.RawClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A subscriber with a persistent session (expiry one hour) that acknowledges as a correct client
 * does: PUBACK for QoS 1; for QoS 2 it delivers a PUBLISH the first time its packet identifier
 * arrives and not again until PUBREL frees it (4.3.3), a state it keeps across connections as its
 * session requires. {@link #delivered()} is what its application saw, duplicates included.
 */
final class Receiver {
    private static final byte[] ONE_HOUR = new RawClient.Bytes().u8(0x11).u32(3600).toByteArray();

    private final String clientId;
    private final List<String> delivered = new ArrayList<>();
    private final Set<Integer> awaitingPubRel = new HashSet<>();
    private RawClient client;

    Receiver(String clientId) {
        this.clientId = clientId;
    }

    /** Connects with Clean Start 1 and subscribes {@code filter} at {@code qos}. */
    Receiver subscribe(int port, String filter, int qos) throws IOException {
        client = RawClient.connected(port, RawClient.Connect.of(V5, clientId).withCleanStart(true).withProperties(ONE_HOUR));
        client.send(RawClient.subscribe(V5, 1, new RawClient.Filter(filter, qos)));
        client.expect(RawClient.SUBACK);
        return this;
    }

    /** Connects again with Clean Start 0 and asserts the broker still had the session. */
    void assertSessionPresentOnResume(int port) throws IOException {
        client = RawClient.open(port);
        client.send(RawClient.Connect.of(V5, clientId).withCleanStart(false).withProperties(ONE_HOUR).bytes());
        var connAck = client.expect(RawClient.CONNACK);
        assertEquals(0, connAck.connAckReason());
        assertEquals(true, connAck.sessionPresent(), "the session survived");
    }

    /** Disconnects normally: the session stays, offline. */
    void disconnect() throws IOException {
        client.send(RawClient.disconnect(V5, 0));
        client.close();
    }

    /** Receives and acknowledges until the broker is quiet for {@code quiet}, or the connection ends. */
    void receiveUntilQuiet(Duration quiet) throws IOException {
        while (true) {
            Optional<RawClient.Packet> next;
            try {
                next = client.readUnlessQuiet(quiet);
            } catch (IOException | AssertionError closed) {
                return;  // the broker was killed
            }
            if (next.isEmpty()) return;
            handle(next.get());
        }
    }

    /** Receives and acknowledges at most {@code count} packets (stopping early if the connection ends). */
    void receive(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            try {
                handle(client.read(Duration.ofSeconds(30)));
            } catch (IOException | AssertionError closed) {
                return;
            }
        }
    }

    private void handle(RawClient.Packet packet) throws IOException {
        if (packet.type() == PUBREL) {
            awaitingPubRel.remove(packet.packetId());
            client.send(RawClient.ack(PUBCOMP, packet.packetId()));
            return;
        }
        assertEquals(PUBLISH, packet.type(), () -> "expected PUBLISH or PUBREL: " + packet);
        var publish = packet.publish(V5);
        if (publish.qos() == 2) {
            if (awaitingPubRel.add(publish.packetId())) delivered.add(publish.payloadText());
            client.send(RawClient.ack(PUBREC, publish.packetId()));
        } else {
            delivered.add(publish.payloadText());
            if (publish.qos() == 1) client.send(RawClient.ack(PUBACK, publish.packetId()));
        }
    }

    List<String> delivered() {
        return delivered;
    }

    void close() throws IOException {
        if (client != null) client.close();
    }
}
