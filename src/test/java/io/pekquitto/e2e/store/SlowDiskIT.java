package io.pekquitto.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.store.InterceptedStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk whose syncs take as long as a test wants ({@code durability = fsync}, writes held at the
 * {@code Store} seam while the "disk" is stuck) never holds a shard's thread (issue 24): a subscriber
 * whose queue waits in the store alone gets all of it while the writes of the messages it acknowledges
 * are stuck, and a session that moves to another shard waits for its writes there (its CONNACK comes
 * once they are written, with everything it had) while the shard it leaves goes on serving.
 */
class SlowDiskIT {
    private static final int QUEUED = 100;
    private static final Duration STUCK_AT_MOST = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** Open: writes go through; closed: each write waits until it opens again (at most a minute). */
    private volatile CountDownLatch stuck = new CountDownLatch(0);

    private Pekquitto start(int shards) {
        var settings = BrokerSettings.parse("""
                listeners = [{host = "127.0.0.1", port = 0}]
                shards = %d
                placement = round-robin
                store { enabled = true, path = "%s", durability = fsync, queued-in-memory = 10 }
                """.formatted(shards, dir.resolve("data").toAbsolutePath()));
        return Pekquitto.start(settings, Security.OPEN, UnaryOperator.identity(), store -> new InterceptedStore(store, batch -> waitWhileStuck()));
    }

    @Test
    void aQueueWaitingInTheStoreIsReadBackWhileItsWritesAreStuck() throws Exception {
        var topic = Names.topic("slow");
        var clientId = Names.clientId("queued");
        try (var broker = start(1)) {
            int port = broker.boundAddresses().get(0).getPort();
            StoreClients.persistentSubscriber(port, clientId, topic);
            var publisher = StoreClients.publisher(port);
            assertEquals(List.of(), StoreClients.publish(publisher, topic, "m", QUEUED).stream().filter(r -> r != 0).toList());

            stuck = new CountDownLatch(1);  // from now on every write waits: the subscriber's acknowledgements too
            try (var subscriber = V5Client.connect(port, clientId, options -> {
                options.setCleanStart(false);
                options.setSessionExpiryInterval(3_600L);
            })) {
                var received = subscriber.inbox().next(QUEUED, Inbox.TIMEOUT).stream().map(Inbox.Message::text).toList();
                assertEquals(IntStream.range(0, QUEUED).mapToObj(n -> "m-" + n).toList(), received,
                        "read back in order, 90 of them from the store, while no write could finish");
            } finally {
                stuck.countDown();
            }
            publisher.disconnect().join();
        }
    }

    @Test
    void aSessionMovingToAnotherShardWaitsForItsWritesWhileTheShardItLeavesGoesOn() throws Exception {
        var topic = Names.topic("moving");
        var clientId = Names.clientId("moving");
        try (var broker = start(2)) {
            int port = broker.boundAddresses().get(0).getPort();
            // Round robin: connections 0, 2 and 4 go to shard 0, 1 and 3 to shard 1.
            StoreClients.persistentSubscriber(port, clientId, topic);  // 0: its session stays on shard 0, offline
            try (var elsewhere = V5Client.connect(port, Names.clientId("filler"), options -> {});  // 1
                 var publisher = V5Client.connect(port, Names.clientId("pub"), options -> {});  // 2: shard 0
                 var other = V5Client.connect(port, Names.clientId("filler"), options -> {});  // 3
                 var probe = V5Client.connect(port, Names.clientId("probe"), options -> {})) {  // 4: shard 0
                probe.subscribe(topic + "/#", 0);
                stuck = new CountDownLatch(1);
                try {
                    // Shard 0 journals a message for the session; its PUBACK waits for the write.
                    var during = CompletableFuture.runAsync(() -> publish(publisher, topic, "during", 1));
                    assertEquals("during", probe.inbox().next().text(), "routed on shard 0, so journaled there");
                    var moved = CompletableFuture.supplyAsync(() -> connect(port, clientId));  // 5: shard 1 takes the session over
                    // For two seconds, long enough for the new connection to claim its session from shard 0.
                    for (int n = 0; n < 20; n++) {
                        probe.publish(topic + "/probe", ("still serving " + n).getBytes(StandardCharsets.UTF_8), 0, false);
                        assertEquals("still serving " + n, probe.inbox().next().text(), "shard 0 answers while its writes are stuck");
                        Thread.sleep(100);
                    }
                    assertFalse(during.isDone(), "acknowledged once written");
                    assertFalse(moved.isDone(), "the session is handed over once what shard 0 wrote of it is written");
                    stuck.countDown();
                    during.get(30, TimeUnit.SECONDS);
                    try (var resumed = moved.get(30, TimeUnit.SECONDS)) {
                        assertTrue(resumed.sessionPresent(), "the session moved whole");
                        assertEquals("during", resumed.inbox().next().text(), "with what it had queued");
                        publish(publisher, topic, "after", 1);
                        assertEquals("after", resumed.inbox().next().text(), "and its subscription");
                    }
                } finally {
                    stuck.countDown();
                }
            }
        }
    }

    private static void publish(V5Client client, String topic, String text, int qos) {
        try {
            client.publish(topic, text.getBytes(StandardCharsets.UTF_8), qos, false);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void waitWhileStuck() {
        try {
            stuck.await(STUCK_AT_MOST.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static V5Client connect(int port, String clientId) {
        try {
            return V5Client.connect(port, clientId, options -> {
                options.setCleanStart(false);
                options.setSessionExpiryInterval(3_600L);
            });
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
