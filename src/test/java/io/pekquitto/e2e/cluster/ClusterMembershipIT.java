package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * Brain Resolver and removed (stable-after = 2s here), and the two left go on serving MQTT; a node
 * stopped with SIGTERM leaves without being downed; a node paused past stable-after is downed, and exits
 * with status 1 when it resumes. The processes are started once for the class and the tests run in
 * order, each taking a node away (the last one starts a fourth to pause).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterMembershipIT {
    private static final Duration FORM = Duration.ofSeconds(60);
    private static final Duration DOWN = Duration.ofSeconds(30);
    private static final Pattern SELF = Pattern.compile("Cluster: this node is (\\S+),");
    private static final Pattern METRICS = Pattern.compile("Prometheus metrics at (http://\\S+/metrics)");

    private static final List<RunnableJar> nodes = new ArrayList<>();
    private static long startedAt;

    @BeforeAll
    static void startThreeNodes() throws Exception {
        int first = ClusterNodes.freePort();
        int second = ClusterNodes.freePort();
        var seeds = "[\"127.0.0.1:" + first + "\", \"127.0.0.1:" + second + "\"]";
        startedAt = System.nanoTime();
        // The third node's cluster port is any free one: no other node names it.
        nodes.addAll(ClusterNodes.startAll(List.of(configuration(first, seeds), configuration(second, seeds), configuration(0, seeds))));
    }

    private static String configuration(int clusterPort, String seeds) {
        return """
                listeners = [{ host = "127.0.0.1", port = 0 }]
                store.enabled = false
                sys-interval = 1s
                metrics { enabled = true, port = 0 }
                cluster { enabled = true, port = %d, seed-nodes = %s, downing.stable-after = 2s }
                """.formatted(clusterPort, seeds);
    }

    @AfterAll
    static void stopAll() throws InterruptedException {
        ClusterNodes.stopAll(nodes);
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
        var metrics = scrape(nodes.get(0));
        assertTrue(metrics.contains("pekquitto_cluster_nodes 3.0"), metrics);
        assertTrue(metrics.contains("pekquitto_cluster_unreachable 0.0"), metrics);
    }

    /** The node's Prometheus metrics, at the address it logs. */
    private static String scrape(RunnableJar node) throws Exception {
        var address = METRICS.matcher(node.log());
        assertTrue(address.find(), node.log());
        var request = HttpRequest.newBuilder(URI.create(address.group(1))).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
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

    @Test
    @Order(3)
    void aNodeStoppedWithSigtermLeavesAndIsNotDowned() throws Exception {
        var leaving = nodes.remove(1);
        var left = address(leaving);
        var stays = nodes.get(0);
        // A client of the leaving node with a will: the node publishes it as it closes the connection, the other does not.
        var watcher = V3Client.connect(stays.port(), "sigterm-will-watch", options -> {});
        watcher.subscribe("cluster/will", 1);
        var mortal = V3Client.connect(leaving.port(), "sigterm-will", o -> o.setWill("cluster/will", "bye".getBytes(), 1, false));
        assertEquals(0, leaving.terminate(), leaving.log());
        stays.awaitLog("node " + left + " was removed: 1 up of 1 members", 1, DOWN);
        stays.awaitLog("Mesh: 0 shards of other nodes", 1, DOWN);
        assertEquals("bye", watcher.inbox().next(Inbox.TIMEOUT).text());
        watcher.inbox().expectNothing(Duration.ofSeconds(1));  // once
        mortal.close();
        watcher.close();
        assertTrue(stays.log().contains("node " + left + " is leaving"), stays.log());
        assertFalse(stays.log().contains("node " + left + " was downed"), "it left; nobody downed it: " + stays.log());
        leaving.close();
    }

    @Test
    @Order(4)
    void aNodePausedPastStableAfterIsDownedAndExitsWithStatus1WhenItResumes() throws Exception {
        var joined = ClusterNodes.start(configuration(0, "[\"" + address(nodes.get(0)) + "\"]"));
        nodes.add(joined);
        for (var node : nodes) node.awaitLog("2 up of 2 members", 1, FORM);
        // Two nodes, one unreachable: keep-majority keeps the side with the lowest address (same host: port).
        var byPort = new ArrayList<>(nodes);
        byPort.sort(Comparator.comparingInt(node -> port(node)));
        var stays = byPort.get(0);
        var paused = byPort.get(1);
        var pausedAddress = address(paused);
        signal("STOP", paused);
        try {
            stays.awaitLog("node " + pausedAddress + " was removed: 1 up of 1 members", 1, DOWN);
        } finally {
            signal("CONT", paused);
        }
        assertEquals(1, paused.awaitExit(DOWN), "a downed node exits with status 1, for its supervisor: " + paused.log());
        assertTrue(paused.log().contains("pekquitto stopped: this node was downed"), paused.log());
        roundTrip(stays);
    }

    private static int port(RunnableJar node) {
        try {
            var address = address(node);
            return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends SIGSTOP or SIGCONT to the node's process. */
    private static void signal(String signal, RunnableJar node) throws Exception {
        var kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process().pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
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
            // The retained value, then each change; no read waits past the deadline.
            Eventually.await(DOWN, "$SYS/broker/cluster/nodes to say " + count,
                    () -> watcher.inbox().next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))).text(), count::equals);
        }
    }
}
