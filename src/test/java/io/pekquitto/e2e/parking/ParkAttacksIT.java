package io.pekquitto.e2e.parking;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.time.Duration;
import java.util.ArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The park attacks: clients that make the broker park and resume as much and as suddenly as they can.
 * Each attack ends with a well-behaved client served as usual, and the heap back at its level once the
 * attackers are parked again (broker and test share the JVM; the slack covers the test's own clients).
 * A 10 ms grace, so that an attack of 1,500 parks takes seconds.
 */
@Timeout(120)
class ParkAttacksIT {
    /** Heap the broker may keep above its level after an attack. A leak of 1 KiB per park would show. */
    private static final long SLACK = 1 << 20;
    private static final byte[] EXPIRY_300 = new Bytes().u8(0x11).u32(300).toByteArray();

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("parking.idle-grace = 10ms");

    @AfterEach
    void aWellBehavedClientIsStillServed() throws Exception {
        broker.assertServesQos1(V5);
    }

    private static void assertBackToLevel(long level, String attack) throws InterruptedException {
        long after = Parked.heapLevel();
        System.out.printf("%s: heap level %,d -> %,d bytes%n", attack, level, after);
        assertTrue(after - level < SLACK, attack + ": heap " + level + " -> " + after + " bytes");
    }

    @Test
    @DisplayName("park-herd: 500 parked subscribers woken at once by one retained publish all get it, then park again")
    void parkHerd() throws Exception {
        int herd = 500;
        String topic = Names.topic("herd");
        var clients = new ArrayList<RawClient>();
        try {
            for (int i = 0; i < herd; i++) {
                var client = broker.raw(Connect.of(V5, Names.clientId("herd-" + i)));
                client.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
                client.expect(SUBACK);
                clients.add(client);
            }
            Parked.await(broker, herd);
            long level = Parked.heapLevel();

            try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
                publisher.send(RawClient.publish(V5, topic, 1, true, 1, new byte[0], "stampede".getBytes()));
                publisher.expect(PUBACK);
                broker.assertServesQos1(V5);  // while the herd is awake
                for (var client : clients) {
                    var publish = client.expect(PUBLISH).publish(V5);
                    assertEquals("stampede", publish.payloadText());
                    client.send(RawClient.ack(PUBACK, publish.packetId()));
                }
                publisher.send(RawClient.publish(V5, topic, 0, true, 0, new byte[0], new byte[0]));  // clears the retained
            }
            Parked.await(broker, herd);
            assertBackToLevel(level, "park-herd");
        } finally {
            for (var client : clients) client.close();
        }
        Parked.await(broker, 0);
    }

    @Test
    @DisplayName("park-thrash: one client parked and resumed 1,500 times keeps being answered")
    void parkThrash() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("thrash")))) {
            Parked.await(broker, 1);
            long level = Parked.heapLevel();
            for (int i = 0; i < 1_500; i++) {
                client.send(RawClient.pingReq());
                client.expect(PINGRESP);
                Parked.await(broker, 1);
            }
            assertBackToLevel(level, "park-thrash");
        }
        Parked.await(broker, 0);
    }

    @Test
    @DisplayName("park-takeover: 500 connections in turn take over the same parked session")
    void parkTakeover() throws Exception {
        var connect = Connect.of(V5, Names.clientId("taken")).withCleanStart(false).withProperties(EXPIRY_300);
        var previous = broker.raw(connect);
        try {
            Parked.await(broker, 1);
            long level = Parked.heapLevel();
            for (int i = 0; i < 500; i++) {
                var next = broker.raw();
                next.send(connect.bytes());
                assertTrue(next.expect(CONNACK).sessionPresent(), "takeover " + i + " finds the session");
                previous.expectDisconnect(0x8E, Duration.ofSeconds(5));
                previous.close();
                previous = next;
                Parked.await(broker, 1);
            }
            assertBackToLevel(level, "park-takeover");
        } finally {
            previous.send(RawClient.disconnect(V5, 0));
            previous.close();
        }
        Parked.await(broker, 0);
    }

    @Test
    @DisplayName("park-dribble: a parked client that sends its next packet a byte at a time, slower than the grace, is answered once")
    void parkDribble() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("dribble")))) {
            Parked.await(broker, 1);
            long level = Parked.heapLevel();
            for (byte b : RawClient.publish(V5, Names.topic("dribbled"), 1, 9, "one byte at a time")) {
                client.send(new byte[] {b});
                Thread.sleep(20);  // twice the grace: a half-read packet must keep the connection live
            }
            assertEquals(9, client.expect(PUBACK).packetId());
            client.expectSilence(Duration.ofMillis(100));
            Parked.await(broker, 1);
            assertBackToLevel(level, "park-dribble");
        }
        Parked.await(broker, 0);
    }
}
