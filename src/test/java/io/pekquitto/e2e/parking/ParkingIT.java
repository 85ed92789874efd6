package io.pekquitto.e2e.parking;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient.Will;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Parking over real sockets (docs/connections.md, Parking): a connection quiet for
 * {@code parking.idle-grace} gives up its actor, and every rule a live connection obeys still holds
 * for it. Raw clients, so that nothing a client library does (pings, reconnects) hides what the broker
 * does. A short grace (200 ms) keeps the tests quick; the broker's counts tell when a client has parked.
 */
@Timeout(60)
class ParkingIT {
    private static final String GRACE = "parking.idle-grace = 200ms\n";
    private static final byte[] EXPIRY_300 = new Bytes().u8(0x11).u32(300).toByteArray();  // Session Expiry Interval

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess(GRACE);

    @RegisterExtension
    static final BrokerExtension twoShards = BrokerExtension.inProcess(GRACE + "shards = 2");

    @Test
    @DisplayName("a parked subscriber gets a delivery and a parked client's next packet is answered, as if never parked")
    void aParkedClientIsServedAsALiveOne() throws Exception {
        String topic = Names.topic("parked");
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")));
             var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            subscriber.expect(SUBACK);
            Parked.await(broker, 2);

            publisher.send(RawClient.publish(V5, topic, 1, 7, "wake up"));  // resumes the publisher, then the subscriber
            assertEquals(7, publisher.expect(PUBACK).packetId());
            var publish = subscriber.expect(PUBLISH).publish(V5);
            assertEquals("wake up", publish.payloadText());
            subscriber.send(RawClient.ack(PUBACK, publish.packetId()));

            Parked.await(broker, 2);
            subscriber.send(RawClient.pingReq());
            subscriber.expect(PINGRESP);
        }
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {V311, V5})
    @DisplayName("a parked client silent for 1.5 x its Keep Alive is disconnected, and its will is published [MQTT-3.1.2-24] [MQTT-3.1.2-8]")
    void theKeepAliveOfAParkedClientIsEnforcedAndItsWillPublished(int version) throws Exception {
        String willTopic = Names.topic("will");
        try (var watcher = broker.raw(Connect.of(V5, Names.clientId("watcher")))) {
            watcher.send(RawClient.subscribe(V5, 1, new Filter(willTopic, 0)));
            watcher.expect(SUBACK);
            var will = new Will(willTopic, "gone".getBytes(StandardCharsets.UTF_8), 0, false);
            try (var silent = broker.raw(Connect.of(version, Names.clientId("silent")).withKeepAlive(1).withWill(will))) {
                Parked.awaitAtLeast(broker, 2);
                long start = System.nanoTime();
                if (version == V5) {
                    silent.expectDisconnect(0x8D, Duration.ofSeconds(5));  // Keep Alive timeout
                } else {
                    silent.expectClosed(Duration.ofSeconds(5));
                }
                long waited = Duration.ofNanos(System.nanoTime() - start).toMillis();
                assertTrue(waited < 3_000, "disconnected " + waited + " ms after parking, Keep Alive 1 s");
            }
            assertEquals("gone", watcher.expect(PUBLISH).publish(V5).payloadText());
        }
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {V311, V5})
    @DisplayName("a parked connection is taken over by a new one with its client id, which gets the session [MQTT-3.1.4-3] [MQTT-3.2.2-2]")
    void aParkedConnectionIsTakenOver(int version) throws Exception {
        takeOverParked(broker, version);
    }

    @Test
    @DisplayName("with two shards, a claim from the other shard takes over a parked connection and moves its session")
    void aClaimFromAnotherShardTakesOverAParkedConnection() throws Exception {
        // Round-robin placement: consecutive connections land on alternate shards.
        takeOverParked(twoShards, V5);
        takeOverParked(twoShards, V5);
    }

    private static void takeOverParked(BrokerExtension broker, int version) throws Exception {
        String clientId = Names.clientId("taken");
        String topic = Names.topic("queued");
        var first = Connect.of(version, clientId).withCleanStart(false).withProperties(EXPIRY_300);
        try (var original = broker.raw(first)) {
            original.send(RawClient.subscribe(version, 1, new Filter(topic, 1)));
            original.expect(SUBACK);
            Parked.await(broker, 1);
            try (var successor = broker.raw()) {
                successor.send(first.bytes());
                assertTrue(successor.expect(CONNACK).sessionPresent(), "the parked connection's session is present");
                if (version == V5) {
                    original.expectDisconnect(0x8E, Duration.ofSeconds(5));  // Session taken over
                } else {
                    original.expectClosed(Duration.ofSeconds(5));
                }
                try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
                    publisher.send(RawClient.publish(V5, topic, 1, 1, "for the successor"));
                    publisher.expect(PUBACK);
                }
                var publish = successor.expect(PUBLISH).publish(version);
                assertEquals("for the successor", publish.payloadText());
                successor.send(RawClient.ack(PUBACK, publish.packetId()));
                successor.send(RawClient.disconnect(version, 0));
            }
        }
        Parked.await(broker, 0);
    }

    @Test
    @DisplayName("Clean Start 1 from a new connection discards a parked connection's session [MQTT-3.1.2-4]")
    void cleanStartDiscardsAParkedSession() throws Exception {
        String clientId = Names.clientId("clean");
        String topic = Names.topic("discarded");
        var persistent = Connect.of(V5, clientId).withCleanStart(false).withProperties(EXPIRY_300);
        try (var original = broker.raw(persistent)) {
            original.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            original.expect(SUBACK);
            Parked.await(broker, 1);
            try (var fresh = broker.raw()) {
                fresh.send(Connect.of(V5, clientId).withCleanStart(true).bytes());
                assertFalse(fresh.expect(CONNACK).sessionPresent(), "no session present after Clean Start 1");
                original.expectDisconnect(0x8E, Duration.ofSeconds(5));
                try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
                    publisher.send(RawClient.publish(V5, topic, 1, 1, "to nobody"));
                    publisher.expect(PUBACK);
                }
                fresh.expectSilence(Duration.ofMillis(300));  // the old subscription went with the old session
            }
        }
    }

    @Test
    @DisplayName("stopping the broker disconnects parked connections as it disconnects live ones: DISCONNECT 0x8B, then closed")
    void stoppingTheBrokerDisconnectsParkedConnections() throws Exception {
        var own = Pekquitto.start(BrokerSettings.parse(GRACE + "listeners = [{host = \"127.0.0.1\", port = 0}]\nshards = 1"));
        try (var client = RawClient.connected(own.port(), Connect.of(V5, Names.clientId("parked")))) {
            Parked.await(own.counts(), 1);
            own.close();
            client.expectDisconnect(0x8B, Duration.ofSeconds(10));  // Server shutting down
        } finally {
            own.close();
        }
    }
}
