package io.pekquitto.e2e.shards;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.DISCONNECT;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static io.pekquitto.e2e.RawClient.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient.Packet;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A takeover storm: 200 connections send a CONNECT with one client id as fast as they can open, none
 * waiting for the previous CONNACK. Each CONNECT takes the client id over from the connection that had
 * it ([MQTT-3.1.4-2] in 3.1.1, [MQTT-3.1.4-3] in 5.0), so once the storm settles exactly one connection
 * is left: it was accepted (CONNACK Success), it is the last one (nobody took it over) and it works.
 * Every other one was closed by the server: after CONNACK Success and, in 5.0, DISCONNECT 0x8E Session
 * taken over (4.13); or, superseded while its CONNECT was still being processed, with nothing sent at
 * all (the broker's choice: it sends no CONNACK it would have to take back at once). Raw sockets, so
 * that no client library reconnects and hides a close. With one
 * shard and with two, where consecutive connections alternate between the shards and every takeover
 * crosses the mesh.
 */
class TakeoverStormIT {
    private static final int CONNECTIONS = 200;
    private static final int SESSION_TAKEN_OVER = 0x8E;
    /** Each older connection must be closed within this, counted from the end of the storm. */
    private static final Duration SETTLE = Duration.ofSeconds(10);
    /** A reader gives up on a connection left open this long (the test is over by then). */
    private static final Duration READER_LIMIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final BrokerExtension oneShard = BrokerExtension.inProcess();

    @RegisterExtension
    static final MeshBroker twoShards = MeshBroker.withShards(2);

    static Stream<Arguments> cases() {
        return Stream.of(Arguments.of(1, V311), Arguments.of(1, V5), Arguments.of(2, V311), Arguments.of(2, V5));
    }

    /** One connection of the storm; a thread of its own reads everything the server sends it, until EOF. */
    private static final class StormConnection {
        final int index;
        final RawClient client;
        final BlockingQueue<Packet> received = new LinkedBlockingQueue<>();
        final List<Packet> history = new ArrayList<>();  // the reader's own copy, read after closed
        final CountDownLatch closed = new CountDownLatch(1);
        volatile Throwable readFailure;

        StormConnection(int index, RawClient client) {
            this.index = index;
            this.client = client;
        }

        void startReading(CountDownLatch anyClosed) {
            var reader = new Thread(() -> {
                try {
                    for (var packet = client.readOrClosed(READER_LIMIT); packet.isPresent(); packet = client.readOrClosed(READER_LIMIT)) {
                        synchronized (history) {
                            history.add(packet.get());
                        }
                        received.add(packet.get());
                    }
                } catch (IOException | AssertionError e) {
                    readFailure = e;
                } finally {
                    closed.countDown();
                    anyClosed.countDown();
                }
            }, "storm-reader-" + index);
            reader.setDaemon(true);
            reader.start();
        }

        boolean isClosed() {
            return closed.getCount() == 0;
        }

        List<Packet> history() {
            synchronized (history) {
                return List.copyOf(history);
            }
        }

        @Override
        public String toString() {
            return "connection " + index + (isClosed() ? " (closed)" : " (open)") + " received " + history()
                    + (readFailure == null ? "" : ", read failed: " + readFailure);
        }
    }

    @ParameterizedTest(name = "{0} shard(s), protocol level {1}")
    @MethodSource("cases")
    @Timeout(60)
    @DisplayName("200 CONNECTs with one client id at once: each takes over the one before, and exactly the last stays and works [MQTT-3.1.4-2 (3.1.1)] [MQTT-3.1.4-3 (5.0)]")
    void takeoverStormLeavesExactlyTheLastConnection(int shards, int version) throws Exception {
        var broker = shards == 1 ? oneShard : twoShards;
        String clientId = Names.clientId("storm");
        byte[] connect = Connect.of(version, clientId).bytes();
        var connections = new ArrayList<StormConnection>(CONNECTIONS);
        var anyClosed = new CountDownLatch(CONNECTIONS);  // counts down once per connection closed
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                var connection = new StormConnection(i, broker.raw());
                connections.add(connection);
                connection.client.send(connect);  // no waiting for CONNACK
                connection.startReading(anyClosed);
            }

            // All but one must be closed by the server; wait for that, bounded.
            Eventually.await(SETTLE, () -> "all but one closed; open: " + summary(connections.stream().filter(c -> !c.isClosed()).toList()),
                    () -> anyClosed.getCount() <= 1);
            var open = connections.stream().filter(c -> !c.isClosed()).toList();
            assertEquals(1, open.size(), () -> open.size() + " connections still open " + SETTLE
                    + " after the storm (expected exactly 1): " + summary(open));
            var survivor = open.get(0);

            // The survivor was accepted, and it works: PINGREQ and a QoS 1 round trip of its own.
            var connAck = survivor.received.poll(5, TimeUnit.SECONDS);
            assertTrue(connAck != null && connAck.type() == CONNACK && connAck.connAckReason() == 0,
                    () -> "the remaining connection's first packet is not CONNACK Success: " + survivor);
            survivor.client.send(RawClient.pingReq());
            assertEquals(PINGRESP, next(survivor).type(), () -> "PINGRESP to the remaining connection: " + survivor);
            assertRoundTrip(survivor, version);
            assertTrue(!survivor.isClosed(), () -> "the remaining connection was closed: " + survivor);

            // Every other one: CONNACK Success, (5.0) DISCONNECT 0x8E, then closed; or, superseded before
            // its CONNACK, closed with nothing sent. Never a refusal, never anything else.
            var wrong = new ArrayList<String>();
            for (var connection : connections) {
                if (connection == survivor) continue;
                String problem = takenOverProblem(connection, version);
                if (problem != null) wrong.add(connection.index + ": " + problem + " " + connection.history());
            }
            assertTrue(wrong.isEmpty(), () -> wrong.size() + " taken-over connections did not end as the spec says:\n"
                    + String.join("\n", wrong.subList(0, Math.min(10, wrong.size()))));
        } finally {
            for (var connection : connections) connection.client.close();
        }
    }

    /**
     * Why a taken-over connection did not end as it may: closed with nothing sent, or CONNACK Success then
     * (5.0) DISCONNECT 0x8E then closed. Null if it did.
     */
    private static String takenOverProblem(StormConnection connection, int version) {
        if (connection.readFailure != null) return "read failed: " + connection.readFailure;
        var packets = connection.history();
        // Superseded while its CONNECT was still being processed (the session not yet attached): the
        // server closes it with nothing sent, as no CONNACK went out that a DISCONNECT could follow
        // ([MQTT-3.2.0-1]: nothing but AUTH before CONNACK).
        if (packets.isEmpty()) return null;
        if (packets.get(0).type() != CONNACK || packets.get(0).connAckReason() != 0) return "first packet not CONNACK Success";
        if (version == V311) {
            // A 3.1.1 server has no DISCONNECT to send: just the close.
            return packets.size() == 1 ? null : "more than CONNACK before the close";
        }
        if (packets.size() != 2) return "expected CONNACK then DISCONNECT " + hex(SESSION_TAKEN_OVER);
        var disconnect = packets.get(1);
        if (disconnect.type() != DISCONNECT || disconnect.disconnectReason() != SESSION_TAKEN_OVER) {
            return "second packet not DISCONNECT " + hex(SESSION_TAKEN_OVER);
        }
        return null;
    }

    /** SUBSCRIBE, then a QoS 1 PUBLISH to itself: SUBACK, PUBACK and the PUBLISH back, in any order after SUBACK. */
    private static void assertRoundTrip(StormConnection survivor, int version) throws Exception {
        String topic = Names.topic("storm");
        survivor.client.send(RawClient.subscribe(version, 1, new Filter(topic, 1)));
        var subAck = next(survivor);
        assertEquals(SUBACK, subAck.type(), () -> "SUBACK: " + survivor);
        assertEquals(List.of(1), subAck.ackReasons(version));
        survivor.client.send(RawClient.publish(version, topic, 1, 2, "last one standing"));
        boolean acked = false;
        boolean delivered = false;
        for (int i = 0; i < 2; i++) {
            var packet = next(survivor);
            if (packet.type() == PUBACK) {
                assertEquals(2, packet.packetId());
                acked = true;
            } else if (packet.type() == PUBLISH) {
                var publish = packet.publish(version);
                assertEquals("last one standing", publish.payloadText());
                survivor.client.send(RawClient.ack(PUBACK, publish.packetId()));
                delivered = true;
            } else {
                fail("unexpected " + packet + " on the remaining connection");
            }
        }
        assertTrue(acked && delivered, "PUBACK and the PUBLISH back");
    }

    private static Packet next(StormConnection connection) throws InterruptedException {
        var packet = connection.received.poll(RawClient.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (packet == null) fail("nothing within " + RawClient.TIMEOUT + " on " + connection);
        return packet;
    }

    private static String summary(List<StormConnection> connections) {
        return connections.stream().limit(10).map(StormConnection::toString).collect(Collectors.joining("\n", "\n", ""))
                + (connections.size() > 10 ? "\n..." : "");
    }
}
