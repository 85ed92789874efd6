package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.NumberedMessages;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25's rolling restart: three runnable jars of two shards each, stopped with SIGTERM and started again one by
 * one while a publisher on another node publishes QoS 1 messages throughout. A node stopped hands its sessions to the
 * others before it leaves (docs/cluster.md, A node leaving): its connected MQTT 5 subscriber gets DISCONNECT 0x8B and
 * resumes its session on the next node (session present 1), each time; a 3.1.1 client's offline session, whose node
 * was the first stopped, is resumed at the end with every message queued for it. Every message the publisher had
 * acknowledged reaches both, none lost, and no connection gets one twice.
 */
@Timeout(400)
class RollingRestartIT {
    private static final Duration FORM = Duration.ofSeconds(60);
    private static final Duration RECEIVE = Duration.ofSeconds(30);
    private static final String TOPIC = "roll/t";

    @Test
    void aRollingRestartLosesNoAcknowledgedMessageOfAPersistentSession() throws Exception {
        int[] ports = {ClusterNodes.freePort(), ClusterNodes.freePort(), ClusterNodes.freePort()};
        var configurations = new ArrayList<String>();
        for (int port : ports) configurations.add(configuration(port, ports));
        var nodes = new ArrayList<>(ClusterNodes.startAll(configurations));
        var publishing = new AtomicBoolean(true);
        var stoppedNodes = new ArrayList<RunnableJar>();
        try {
            for (var node : nodes) node.awaitLog("Mesh: 4 shards of other nodes", 1, FORM);
            var subscriber = connectSubscriber(nodes.get(0).port(), false);
            var offline = V3Client.connect(nodes.get(0).port(), "roll-offline", options -> options.setCleanSession(false));
            offline.subscribe(TOPIC, 1);
            offline.disconnect();

            var acknowledged = new ConcurrentSkipListSet<Integer>();
            var target = new AtomicInteger(1);
            var publisher = CompletableFuture.runAsync(() -> publish(nodes, target, publishing, acknowledged));
            var received = new NumberedMessages();
            for (int stopped = 0; stopped < 3; stopped++) {
                int next = (stopped + 1) % 3;
                target.set(next == 0 ? 1 : next == 1 ? 2 : 0);  // the publisher keeps off the node that stops
                if (stopped == 0) Thread.sleep(1000);  // it has moved
                waitFor(acknowledged, 50);
                var disconnected = subscriber.disconnected();
                assertEquals(0, nodes.get(stopped).terminate(), "node " + stopped + " exits 0 after SIGTERM");
                var response = disconnected.get(10, TimeUnit.SECONDS);
                assertEquals(0x8B, response.getReturnCode(), "DISCONNECT Server shutting down, from node " + stopped);
                received.add(subscriber.inbox().within(Duration.ofMillis(200)), subscriber);
                subscriber.close();
                subscriber = connectSubscriber(nodes.get(next).port(), true);
                assertTrue(subscriber.sessionPresent(), "session present 1 on node " + next + " after node " + stopped + " left");
                stoppedNodes.add(nodes.get(stopped));
                nodes.set(stopped, ClusterNodes.start(configurations.get(stopped)));
                nodes.get(stopped).awaitLog("Mesh: 4 shards of other nodes", 1, FORM);
                waitFor(acknowledged, acknowledged.size() + 50);
            }
            publishing.set(false);
            publisher.get(30, TimeUnit.SECONDS);

            var expected = new TreeSet<>(acknowledged);
            assertTrue(expected.size() > 150, "published throughout: " + expected.size());
            receiveAll(subscriber, expected, received);
            assertTrue(received.containsAll(expected), () -> "lost: " + received.missing(expected));
            assertEquals(List.of(), received.twice(), "delivered twice to one connection");
            subscriber.close();
            try (var back = V3Client.connect(nodes.get(2).port(), "roll-offline", options -> options.setCleanSession(false))) {
                assertTrue(back.sessionPresent(), "the offline session, handed on when its node stopped");
                var queued = receiveAll(back, expected, new NumberedMessages());
                assertTrue(queued.containsAll(expected), () -> "lost while offline: " + queued.missing(expected));
                assertEquals(List.of(), queued.twice(), "delivered twice while offline");
            }
        } finally {
            publishing.set(false);
            ClusterNodes.stopAll(nodes);
            ClusterNodes.stopAll(stoppedNodes);
        }
    }

    private static String configuration(int port, int[] ports) {
        var seeds = "[\"127.0.0.1:%d\", \"127.0.0.1:%d\", \"127.0.0.1:%d\"]".formatted(ports[0], ports[1], ports[2]);
        return """
                listeners = [{ host = "127.0.0.1", port = 0 }]
                shards = 2
                max-queued-messages = 100000
                cluster { enabled = true, port = %d, seed-nodes = %s, downing.stable-after = 2s }
                """.formatted(port, seeds);
    }

    private static V5Client connectSubscriber(int port, boolean resume) throws Exception {
        var subscriber = V5Client.connect(port, "roll-sub", options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(600L);
            options.setReceiveMaximum(1000);
        });
        if (!resume) subscriber.subscribe(TOPIC, 1);
        return subscriber;
    }

    /** QoS 1 messages numbered from 0, one every few milliseconds, to the node {@code target} names; moves when it changes. */
    private static void publish(List<RunnableJar> nodes, AtomicInteger target, AtomicBoolean publishing, Set<Integer> acknowledged) {
        int number = 0;
        V3Client publisher = null;
        int on = -1;
        while (publishing.get()) {
            try {
                if (on != target.get() || publisher == null || !publisher.isConnected()) {
                    if (publisher != null) publisher.close();
                    on = target.get();
                    publisher = V3Client.connect(nodes.get(on).port(), "roll-pub", options -> {});
                }
                publisher.publish(TOPIC, Integer.toString(number).getBytes(StandardCharsets.UTF_8), 1, false);
                acknowledged.add(number++);  // PUBACK received
                Thread.sleep(5);
            } catch (Exception e) {
                if (publisher != null) publisher.close();
                publisher = null;  // not acknowledged: published again, under the same number
            }
        }
        if (publisher != null) publisher.close();
    }

    private static void waitFor(Set<Integer> acknowledged, int count) {
        Eventually.await(RECEIVE, () -> count + " acknowledged (the publisher publishes): " + acknowledged.size(),
                () -> acknowledged.size() >= count);
    }

    private static NumberedMessages receiveAll(PahoClient client, Set<Integer> expected, NumberedMessages received) throws InterruptedException {
        Eventually.await(RECEIVE, () -> "every acknowledged message; lost: " + received.missing(expected), () -> {
            if (!received.containsAll(expected)) received.add(client.inbox().within(Duration.ofMillis(200)), client);
            return received.containsAll(expected);
        });
        received.add(client.inbox().within(Inbox.QUIET), client);  // and nothing more
        return received;
    }
}
