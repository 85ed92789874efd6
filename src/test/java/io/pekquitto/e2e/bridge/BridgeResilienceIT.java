package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.WAIT;
import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.awaitState;
import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.pekquittoBridgedTo;
import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.stateTopic;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.shards.stats.ShardFigures;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing lost while the remote is away: a real Mosquitto stopped and started again under the bridge,
 * and pekquitto itself restarted on its store while the remote is away.
 */
class BridgeResilienceIT {
    private static final String OUT = "[ { pattern = \"queue/#\", direction = out, qos = 1 } ]";

    /** A persistent QoS 1 subscriber to {@code topic} at the remote, whose session Mosquitto keeps across its restarts. */
    private static V3Client farSubscriber(int port, String clientId, String topic) throws Exception {
        var far = V3Client.connect(port, clientId, options -> options.setCleanSession(false));
        far.subscribe(topic, 1);
        return far;
    }

    private static List<String> texts(List<Inbox.Message> messages) {
        return messages.stream().map(Inbox.Message::text).toList();
    }

    private static List<String> numbered(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "m" + i).toList();
    }

    @Test
    @Timeout(90)
    @DisplayName("the remote stopped and started again: QoS 1 published meanwhile arrives once, in order; the state goes 0 and back to 1")
    void remoteRestart() throws Exception {
        var clientId = Names.clientId("bridge");
        var farId = Names.clientId("far");
        try (var remote = MosquittoRemote.launch();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, OUT, "");
             var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"));
             var watcher = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("watcher"))) {
            farSubscriber(remote.port(), farId, "queue/after").close();
            watcher.subscribe(stateTopic(clientId), 1);
            BridgeToMosquittoIT.awaitUp(local, clientId);
            awaitState(watcher, clientId, "1");

            // Before the stop, a subscriber of its own: Mosquitto 2.0.11 may keep messages a persistent session
            // had acknowledged as still in flight across its restart and send them again (seen: "d1" to the
            // same session), which would be its duplicates, not the bridge's.
            try (var before = V3Client.connect(remote.port(), Names.clientId("before"), options -> {})) {
                before.subscribe("queue/before", 1);
                for (int i = 0; i < 10; i++) local.publish("queue/before", "m" + i, 1, false);
                assertEquals(numbered(0, 10), texts(before.inbox().next(10, WAIT)));
            }
            remote.stop();
            awaitState(watcher, clientId, "0");
            // The local publishers' PUBACKs do not wait for the remote: each publish returns while it is away.
            for (int i = 10; i < 60; i++) local.publish("queue/after", "m" + i, 1, false);
            remote.start();
            awaitState(watcher, clientId, "1");
            try (var far = farSubscriber(remote.port(), farId, "queue/after")) {
                var received = texts(far.inbox().next(50, WAIT));
                assertEquals(numbered(10, 60), received, () -> "Mosquitto's log since its restart:\n" + remote.output());
                far.inbox().expectNothing(Duration.ofMillis(500));
            }
        }
    }

    @Test
    @Timeout(90)
    @DisplayName("pekquitto restarted on its store while the remote is away: what waited to go out is sent once it is back")
    void pekquittoRestartWithTheStore() throws Exception {
        var clientId = Names.clientId("bridge");
        var farId = Names.clientId("far");
        var store = "store { enabled = true, path = \"" + Files.createTempDirectory("bridge-store").toAbsolutePath() + "\" }";
        try (var remote = MosquittoRemote.launch()) {
            farSubscriber(remote.port(), farId, "queue/b").close();
            remote.stop();
            try (var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, OUT, "", store);
                 var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"))) {
                for (int i = 0; i < 30; i++) local.publish("queue/b", "m" + i, 1, false);
            }
            remote.start();
            try (var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, OUT, "", store);
                 var far = farSubscriber(remote.port(), farId, "queue/b")) {
                assertEquals(numbered(0, 30), texts(far.inbox().next(30, WAIT)));
                far.inbox().expectNothing(Duration.ofMillis(500));
            }
        }
    }

    @Test
    @Timeout(90)
    @DisplayName("past the local session's bound the newest messages are dropped and counted; the first ones go out in order")
    void dropsPastTheBoundAreCounted() throws Exception {
        var clientId = Names.clientId("bridge");
        var farId = Names.clientId("far");
        try (var remote = MosquittoRemote.launch()) {
            farSubscriber(remote.port(), farId, "queue/c").close();
            remote.stop();
            try (var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, OUT, "",
                    "max-inflight-messages = 5\nmax-queued-messages = 10");
                 var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"))) {
                for (int i = 0; i < 40; i++) local.publish("queue/c", "m" + i, 1, false);
                long dropped = Eventually.await(WAIT, "25 dropped", () -> pekquitto.figures().toCompletableFuture().get()
                        .shards().stream().mapToLong(ShardFigures::droppedTotal).sum(), count -> count >= 25);
                assertEquals(25, dropped, "5 with the bridge, 10 queued, the rest dropped");
                remote.start();
                try (var far = farSubscriber(remote.port(), farId, "queue/c")) {
                    assertEquals(numbered(0, 15), texts(far.inbox().next(15, WAIT)));
                    far.inbox().expectNothing(Duration.ofMillis(500));
                }
            }
        }
    }
}
