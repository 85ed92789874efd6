package io.pekquitto.e2e.ops;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.AwaitParked;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient.Will;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful shutdown (SIGTERM, or {@link Pekquitto#close}): MQTT 5 clients hear DISCONNECT 0x8B
 * (Server shutting down), parked ones too; 3.1.1 connections are closed; wills are published only for
 * sessions that end with the broker; the runnable broker exits 0 within {@code shutdown-timeout}.
 */
class GracefulShutdownIT {
    private static final int SERVER_SHUTTING_DOWN = 0x8B;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void sigtermDisconnectsEveryClientAndTheBrokerExitsZeroWithinTheTimeout() throws Exception {
        try (var jar = RunnableJar.start("listeners = [{ host = \"127.0.0.1\", port = 0 }]\nshutdown-timeout = 5s\n");
             var v5 = RawClient.connected(jar.port(), Connect.of(V5, "v5-client"));
             var v311 = RawClient.connected(jar.port(), Connect.of(V311, "v311-client"))) {
            long start = System.nanoTime();
            int status = jar.terminate();
            var took = Duration.ofNanos(System.nanoTime() - start);

            assertEquals(0, status, () -> "exit status; log: " + log(jar));
            assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "took " + took);
            v5.expectDisconnect(SERVER_SHUTTING_DOWN, WAIT);
            v311.expectClosed(WAIT);  // 3.1.1 has no server DISCONNECT: the connection just closes
            assertTrue(log(jar).contains("SIGTERM received: shutting down"), () -> log(jar));
        }
    }

    @Test
    void aParkedConnectionIsResumedToHearIt() throws Exception {
        var broker = Pekquitto.start(BrokerSettings.parse("""
                shards = 2
                listeners = [{ host = "127.0.0.1", port = 0 }]
                parking.idle-grace = 100ms
                """));
        try (var client = RawClient.connected(broker.port(), Connect.of(V5, "parks"))) {
            AwaitParked.atLeast(broker.counts(), 1, WAIT.multipliedBy(2));
            broker.close();
            client.expectDisconnect(SERVER_SHUTTING_DOWN, WAIT);
        } finally {
            broker.close();
        }
    }

    /**
     * MQTT 5 3.1.2.5: a will is for a connection that ends while its session goes on without it. A session
     * kept in the store comes back with the broker, and its client with it: no will. A session that
     * ends with the connection has its will published, and a persistent subscriber has it after the restart.
     */
    @Test
    void willsOnlyForSessionsThatEndWithTheBroker(@TempDir Path store) throws Exception {
        var settings = BrokerSettings.parse("""
                listeners = [{ host = "127.0.0.1", port = 0 }]
                store { enabled = true, path = "%s" }
                """.formatted(store.toString().replace("\\", "/")));
        var received = new HashSet<String>();
        var broker = Pekquitto.start(settings);
        var subscriber = RawClient.connected(broker.port(), persistent(Connect.of(V5, "will-watcher")));
        subscriber.send(RawClient.subscribe(V5, 1, new Filter("wills/#", 1)));
        subscriber.expect(SUBACK);
        try (var ending = RawClient.connected(broker.port(), Connect.of(V5, "ends").withWill(will("wills/ends")));
             var staying = RawClient.connected(broker.port(), persistent(Connect.of(V5, "stays")).withWill(will("wills/stays")));
             var v311 = RawClient.connected(broker.port(), Connect.of(V311, "v311-ends").withWill(will("wills/v311-ends")))) {
            broker.close();
            readWillsUntilClosed(subscriber, received);  // a will may reach the subscriber before its own DISCONNECT
        }
        subscriber.close();

        var restarted = Pekquitto.start(settings);
        try (var back = RawClient.open(restarted.port())) {
            back.send(persistent(Connect.of(V5, "will-watcher")).withCleanStart(false).bytes());
            assertTrue(back.expect(CONNACK).sessionPresent());
            readWillsUntilQuiet(back, received);
        } finally {
            restarted.close();
        }
        assertEquals(Set.of("wills/ends", "wills/v311-ends"), received);
    }

    private static Connect persistent(Connect connect) {
        return connect.withProperties(new Bytes().u8(0x11).u32(3600).toByteArray());  // Session Expiry Interval
    }

    private static Will will(String topic) {
        return new Will(topic, topic.getBytes(StandardCharsets.UTF_8), 1, false);
    }

    private static void readWillsUntilClosed(RawClient client, Set<String> into) throws IOException {
        for (var packet = client.readOrClosed(WAIT); packet.isPresent(); packet = client.readOrClosed(WAIT)) {
            if (packet.get().type() == PUBLISH) into.add(packet.get().publish(V5).topic());
        }
    }

    private static void readWillsUntilQuiet(RawClient client, Set<String> into) throws IOException {
        for (var packet = client.readUnlessQuiet(Duration.ofSeconds(1)); packet.isPresent();
             packet = client.readUnlessQuiet(Duration.ofSeconds(1))) {
            if (packet.get().type() == PUBLISH) {
                var publish = packet.get().publish(V5);
                into.add(publish.topic());
                client.send(RawClient.ack(RawClient.PUBACK, publish.packetId()));
            }
        }
    }

    private static String log(RunnableJar jar) {
        try {
            return jar.log();
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }
}
