package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three runnable jars on loopback form one cluster (issue 25, membership): each logs the three members
 * Up and publishes {@code $SYS/broker/cluster/nodes}; a node killed with SIGKILL is downed by the Split
 * Brain Resolver and removed (stable-after = 2s here), and the two left go on serving MQTT. The three
 * processes are started once for the class; the tests run in order, the last one kills the third node.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterMembershipIT {
    private static final Duration FORM = Duration.ofSeconds(60);
    private static final Duration DOWN = Duration.ofSeconds(30);
    private static final Pattern SELF = Pattern.compile("Cluster: this node is (\\S+),");

    private static final List<RunnableJar> nodes = new ArrayList<>();
    private static long startedAt;

    @BeforeAll
    static void startThreeNodes() throws Exception {
        int first = freePort();
        int second = freePort();
        var seeds = "[\"127.0.0.1:" + first + "\", \"127.0.0.1:" + second + "\"]";
        startedAt = System.nanoTime();
        // In parallel: each JVM takes seconds to start. The third node's cluster port is any free one: no
        // other node names it.
        var starting = List.of(first, second, 0).stream().map(port -> CompletableFuture.supplyAsync(() -> start(port, seeds))).toList();
        try {
            for (var node : starting) nodes.add(node.join());
        } catch (CompletionException e) {
            stopAll();
            throw e;
        }
    }

    private static RunnableJar start(int clusterPort, String seeds) {
        try {
            return RunnableJar.start("""
                    listeners = [{ host = "127.0.0.1", port = 0 }]
                    store.enabled = false
                    sys-interval = 1s
                    cluster { enabled = true, port = %d, seed-nodes = %s, downing.stable-after = 2s }
                    """.formatted(clusterPort, seeds));
        } catch (IOException | InterruptedException e) {
            throw new CompletionException(e);
        }
    }

    @AfterAll
    static void stopAll() throws InterruptedException {
        for (var node : nodes) node.close();
        nodes.clear();
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The node's cluster address, {@code host:port}, as it logs it at start. */
    private static String address(RunnableJar node) throws IOException {
        var self = SELF.matcher(node.log());
        assertTrue(self.find(), node.log());
        return self.group(1);
    }

    @Test
    @Order(1)
    void threeNodesSeeThreeMembersUp() throws Exception {
        for (var node : nodes) node.awaitLog("3 up of 3 members", 1, FORM);
        System.out.printf("ClusterMembershipIT: three nodes formed a cluster %d ms after their start%n",
                (System.nanoTime() - startedAt) / 1_000_000);
        for (var node : nodes) assertTrue(node.log().contains("(this node) is up"), node.log());
        awaitSys(nodes.get(2), "3");
    }

    @Test
    @Order(2)
    void aKilledNodeIsDownedAndRemovedAndTheOthersServeOn() throws Exception {
        for (var node : nodes) node.awaitLog("3 up of 3 members", 1, FORM);
        var killed = nodes.remove(2);
        var lost = address(killed);
        long killedAt = System.nanoTime();
        killed.kill();
        for (var node : nodes) {
            node.awaitLog("node " + lost + " was downed", 1, DOWN);
            node.awaitLog("node " + lost + " was removed: 2 up of 2 members", 1, DOWN);
        }
        System.out.printf("ClusterMembershipIT: a killed node removed on both survivors %d ms after SIGKILL%n",
                (System.nanoTime() - killedAt) / 1_000_000);
        for (var node : nodes) {
            assertTrue(node.log().contains("node " + lost + " is unreachable"), node.log());
            awaitSys(node, "2");
            roundTrip(node);
        }
    }

    /** A QoS 1 publish on the node reaches a QoS 1 subscriber on the same node. */
    private static void roundTrip(RunnableJar node) throws Exception {
        try (var subscriber = V3Client.connect(node.port(), "cluster-sub-" + node.port(), options -> {});
             var publisher = V3Client.connect(node.port(), "cluster-pub-" + node.port(), options -> {})) {
            subscriber.subscribe("cluster/alive", 1);
            publisher.publish("cluster/alive", "still serving", 1, false);
            var message = subscriber.inbox().next(Inbox.TIMEOUT);
            assertEquals("still serving", message.text());
            assertEquals(1, message.qos());
        }
    }

    /** Waits until the node's retained {@code $SYS/broker/cluster/nodes} says {@code count}. */
    private static void awaitSys(RunnableJar node, String count) throws Exception {
        long deadline = System.nanoTime() + DOWN.toNanos();
        try (var watcher = V3Client.connect(node.port(), "cluster-sys-" + node.port(), options -> {})) {
            watcher.subscribe("$SYS/broker/cluster/nodes", 0);
            String last = null;
            while (!count.equals(last)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) fail("$SYS/broker/cluster/nodes is " + last + ", not " + count + " after " + DOWN);
                last = watcher.inbox().next(Duration.ofNanos(left)).text();  // the retained value, then each change
            }
        }
    }
}
