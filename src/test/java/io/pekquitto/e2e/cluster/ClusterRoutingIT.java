package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Will;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoClients;
import io.pekquitto.e2e.websocket.NodeScript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three runnable jars of two shards each, each with its store, on loopback form one cluster whose shards are
 * one mesh (issue 25): a publish on any node reaches the matching subscribers on every node, once and in order
 * per publisher (Paho at QoS 1, mosquitto_pub and mosquitto_sub at QoS 0 and 2); a retained message is seen from every
 * node; a shared subscription's members on three nodes get each of 10,000 messages once between them; a will reaches a subscriber on another node; a client that comes back on
 * another node finds its session there with what was queued for it, a connection on another node takes a
 * session over (0x8E), and of 200 connections with one client id on three nodes one is left; once a node is
 * killed and downed, the others forget its shards, route on, and publish the will of its client once (not that of a
 * client that disconnected before); a node that joins later gets the retained messages; each node's $SYS topics are its
 * own, the cluster's totals count every node, and the status page (headless Chromium) lists the nodes and their rates.
 * Started once for the class, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterRoutingIT {
    private static final Duration FORM = Duration.ofSeconds(60);
    private static final Duration DOWN = Duration.ofSeconds(30);
    private static final Duration RECEIVE = Duration.ofSeconds(20);
    private static final int MESSAGES = 1000;
    private static final int SHARED_MESSAGES = 10_000;
    /** The port of a node's WebSocket listener, as its start logs it. */
    private static final Pattern WEBSOCKET = Pattern.compile("MQTT over WebSockets: ws://127\\.0\\.0\\.1:(\\d+)/");

    private static final List<RunnableJar> nodes = new ArrayList<>();

    @BeforeAll
    static void startThreeNodes() throws Exception {
        int first = ClusterNodes.freePort();
        var seeds = "[\"127.0.0.1:" + first + "\"]";
        nodes.addAll(ClusterNodes.startAll(List.of(first, 0, 0).stream().map(port -> """
                listeners = [{ host = "127.0.0.1", port = 0 }, { host = "127.0.0.1", port = 0, protocol = websocket }]
                shards = 2
                sys-interval = 1s
                cluster { enabled = true, port = %d, seed-nodes = %s, downing.stable-after = 2s }
                """.formatted(port, seeds)).toList()));
        try {
            // Every node lists the four shards of the two others (the mesh is whole).
            for (var node : nodes) node.awaitLog("Mesh: 4 shards of other nodes", 1, FORM);
        } catch (AssertionError e) {
            stopAll();
            throw e;
        }
    }

    @AfterAll
    static void stopAll() throws InterruptedException {
        ClusterNodes.stopAll(nodes);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Order(1)
    void aPublishOnOneNodeReachesTheSubscribersOfEveryNodeOnceAndInOrder() throws Exception {
        var subscribers = new ArrayList<V3Client>();
        try {
            for (int i = 0; i < nodes.size(); i++) {
                var subscriber = V3Client.connect(nodes.get(i).port(), "routing-sub-" + i, options -> options.setMaxInflight(1000));
                subscriber.subscribe("routing/+/t", 1);  // SUBACK once every shard of every node routes it here
                subscribers.add(subscriber);
            }
            // Two publishers on two nodes at once: each one's messages arrive in its order.
            try (var first = V3Client.connect(nodes.get(0).port(), "routing-pub-0", options -> options.setMaxInflight(100));
                 var second = V3Client.connect(nodes.get(1).port(), "routing-pub-1", options -> options.setMaxInflight(100))) {
                var other = CompletableFuture.runAsync(() -> publishAll(second, "routing/b/t"));
                publishAll(first, "routing/a/t");
                other.join();
            }
            for (var subscriber : subscribers) {
                var received = subscriber.inbox().next(2 * MESSAGES, RECEIVE);
                var next = new HashMap<String, Integer>(Map.of("routing/a/t", 0, "routing/b/t", 0));
                for (var message : received) {
                    int expected = next.merge(message.topic(), 1, Integer::sum) - 1;
                    assertEquals(Integer.toString(expected), message.text(), "in order per publisher, once: " + message.topic());
                    assertEquals(1, message.qos());
                }
                subscriber.inbox().expectNothing(Inbox.QUIET);
            }
        } finally {
            for (var subscriber : subscribers) subscriber.close();
        }
    }

    private static void publishAll(V3Client publisher, String topic) {
        try {
            for (int i = 0; i < MESSAGES; i++) publisher.publish(topic, bytes(Integer.toString(i)), 1, false);
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /** mosquitto_pub on node 0 at QoS 0 and 2, mosquitto_sub on nodes 1 (MQTT 5) and 2 (3.1.1): every message, in order. */
    @Test
    @Order(2)
    void mosquittoClientsOnThreeNodesGetQos0AndQos2InOrder() throws Exception {
        var lines = IntStream.range(0, 100).mapToObj(Integer::toString).toList();
        for (int qos : new int[] {0, 2}) {
            var topic = "routing/mosquitto/" + qos;
            var subscribers = List.of(
                    ChildProcess.start(MosquittoClients.sub(nodes.get(1).port(), "mqttv5", "msub-5-" + qos, "-q", Integer.toString(qos),
                            "-t", topic, "-C", "100", "-W", "30", "-d", "-F", "%q|%p")),
                    ChildProcess.start(MosquittoClients.sub(nodes.get(2).port(), "mqttv311", "msub-3-" + qos, "-q", Integer.toString(qos),
                            "-t", topic, "-C", "100", "-W", "30", "-d", "-F", "%q|%p")));
            try {
                // Its SUBACK once every shard of every node routes the filter to it.
                for (var subscriber : subscribers) subscriber.awaitLine(line -> line.contains("received SUBACK"));
                try (var publisher = ChildProcess.start(MosquittoClients.pub(nodes.get(0).port(), "mqttv5", "mpub-" + qos,
                        "-q", Integer.toString(qos), "-t", topic, "-l"), String.join("\n", lines) + "\n")) {
                    assertEquals(0, publisher.awaitExit(), publisher::output);
                }
                for (var subscriber : subscribers) {
                    assertEquals(0, subscriber.awaitExit(), subscriber::output);
                    var expected = lines.stream().map(line -> qos + "|" + line).toList();
                    assertEquals(expected, subscriber.linesMatching(line -> line.matches("\\d\\|\\d+")), "QoS " + qos + ", in order, once");
                }
            } finally {
                subscribers.forEach(ChildProcess::close);
            }
        }
    }

    @Test
    @Order(3)
    void aRetainedMessageIsSeenFromEveryNode() throws Exception {
        try (var publisher = V3Client.connect(nodes.get(0).port(), "retain-pub", options -> {})) {
            publisher.publish("routing/retained", bytes("kept"), 1, true);  // its PUBACK waits for every shard's copy
        }
        for (int i = 0; i < nodes.size(); i++) {
            try (var late = V3Client.connect(nodes.get(i).port(), "retain-sub-" + i, options -> {})) {
                late.subscribe("routing/retained", 1);
                var message = late.inbox().next(Inbox.TIMEOUT);
                assertEquals("kept", message.text());
                assertTrue(message.retained(), "as retained, on node " + i);
            }
        }
    }

    @Test
    @Order(4)
    void aSharedSubscriptionsMembersOnThreeNodesGetEachMessageOnceBetweenThem() throws Exception {
        var members = new ArrayList<V3Client>();
        try {
            for (int i = 0; i < nodes.size(); i++) {
                var member = V3Client.connect(nodes.get(i).port(), "member-" + i, options -> options.setMaxInflight(1000));
                member.subscribe("$share/workers/routing/jobs", 1);
                members.add(member);
            }
            // mosquitto_pub -l: a message per line, QoS 1, in flight 20 at a time.
            var lines = IntStream.range(0, SHARED_MESSAGES).mapToObj(Integer::toString).collect(Collectors.joining("\n")) + "\n";
            try (var publisher = ChildProcess.start(MosquittoClients.pub(nodes.get(1).port(), "mqttv311", "jobs-pub",
                    "-q", "1", "-t", "routing/jobs", "-l"), lines)) {
                assertEquals(0, publisher.awaitExit(), publisher::output);
            }
            var seen = new HashSet<String>();
            var perMember = new int[members.size()];
            Eventually.await(RECEIVE, () -> SHARED_MESSAGES + " messages across the members; " + seen.size(), () -> {
                for (int i = 0; i < members.size() && seen.size() < SHARED_MESSAGES; i++) {
                    for (var message : members.get(i).inbox().within(Duration.ofMillis(50))) {
                        assertTrue(seen.add(message.text()), "message " + message.text() + " given twice");
                        perMember[i]++;
                    }
                }
                return seen.size() >= SHARED_MESSAGES;
            });
            assertEquals(SHARED_MESSAGES, seen.size(), "every message given to one member");
            for (var member : members) member.inbox().expectNothing(Inbox.QUIET);
            for (int i = 0; i < perMember.length; i++) assertTrue(perMember[i] > 0, "member on node " + i + " got none");
        } finally {
            for (var member : members) member.close();
        }
    }

    @Test
    @Order(5)
    void aMessageNearlyAsLargeAsTheLargestPacketCrossesNodes() throws Exception {
        var payload = new byte[1_000_000];  // max-packet-size is 1 MiB: a batch between nodes carries it alone
        Arrays.fill(payload, (byte) 'x');
        try (var subscriber = V3Client.connect(nodes.get(1).port(), "large-sub", options -> {});
             var publisher = V3Client.connect(nodes.get(0).port(), "large-pub", options -> {})) {
            subscriber.subscribe("routing/large", 1);
            publisher.publish("routing/large", payload, 1, false);
            publisher.publish("routing/large", bytes("small after it"), 1, false);
            assertTrue(Arrays.equals(payload, subscriber.inbox().next(Inbox.TIMEOUT).payload()));
            assertEquals("small after it", subscriber.inbox().next(Inbox.TIMEOUT).text());
        }
    }

    @Test
    @Order(6)
    void aWillReachesASubscriberOnAnotherNode() throws Exception {
        try (var watcher = V3Client.connect(nodes.get(2).port(), "will-watch", options -> {})) {
            watcher.subscribe("routing/will", 1);
            var will = new Will("routing/will", bytes("gone"), 1, false);
            var mortal = RawClient.connected(nodes.get(0).port(), Connect.of(RawClient.V311, "mortal").withWill(will));
            mortal.close();  // no DISCONNECT: to the broker the network failed
            var message = watcher.inbox().next(Inbox.TIMEOUT);
            assertEquals("gone", message.text());
        }
    }

    @Test
    @Order(7)
    void aClientThatComesBackOnAnotherNodeFindsItsSessionWithWhatWasQueued() throws Exception {
        var first = V5Client.connect(nodes.get(0).port(), "roamer", options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(300L);
        });
        first.subscribe("roam/t", 1);
        first.close();  // DISCONNECT: the session waits on node 0, offline
        try (var publisher = V5Client.connect(nodes.get(1).port(), "roam-pub", options -> {})) {
            for (int i = 0; i < 20; i++) publisher.publish("roam/t", bytes(Integer.toString(i)), 1, false);
        }
        try (var back = V5Client.connect(nodes.get(2).port(), "roamer", options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(300L);
        })) {
            assertTrue(back.sessionPresent(), "the session moved from node 0 to node 2");
            var received = back.inbox().next(20, RECEIVE);
            for (int i = 0; i < 20; i++) assertEquals(Integer.toString(i), received.get(i).text(), "queued, in order");
            try (var publisher = V5Client.connect(nodes.get(0).port(), "roam-pub-2", options -> {})) {
                publisher.publish("roam/t", bytes("after"), 1, false);
            }
            assertEquals("after", back.inbox().next(Inbox.TIMEOUT).text(), "its subscription is routed to node 2 now");
            back.inbox().expectNothing(Inbox.QUIET);
        }
    }

    @Test
    @Order(8)
    void aConnectionOnAnotherNodeTakesTheSessionOverWithSessionTakenOver() throws Exception {
        var v5 = V5Client.connect(nodes.get(0).port(), "taken-v5", options -> {});
        try (var taker = V5Client.connect(nodes.get(1).port(), "taken-v5", options -> {})) {
            var disconnect = v5.disconnected().get(RECEIVE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(0x8E, disconnect.getReturnCode(), "Session taken over [MQTT-3.1.4-3]");
            assertTrue(taker.paho().isConnected());
        }
        var v3 = V3Client.connect(nodes.get(2).port(), "taken-v3", options -> {});
        try (var taker = V3Client.connect(nodes.get(0).port(), "taken-v3", options -> {})) {
            v3.connectionLost().get(RECEIVE.toSeconds(), TimeUnit.SECONDS);  // 3.1.1: the connection is closed
            assertTrue(taker.paho().isConnected());
        }
    }

    @Test
    @Order(9)
    void ofTwoHundredConnectionsWithOneClientIdOnThreeNodesOneIsLeft() throws Exception {
        var pool = Executors.newFixedThreadPool(50);
        try {
            var answers = new ArrayList<Future<RawClient>>();
            for (int i = 0; i < 200; i++) {
                int node = i % nodes.size();
                answers.add(pool.submit(() -> {
                    var client = RawClient.open(nodes.get(node).port());
                    client.send(Connect.of(RawClient.V5, "storm").bytes());
                    var answer = client.readOrClosed(RECEIVE);  // CONNACK, or closed: a later claim came first
                    return answer.isPresent() && answer.get().type() == RawClient.CONNACK ? client : null;
                }));
            }
            var connected = new ArrayList<RawClient>();
            for (var answer : answers) {
                var client = answer.get(RECEIVE.toSeconds(), TimeUnit.SECONDS);
                if (client != null) connected.add(client);
            }
            // Every CONNECT is answered: every connection taken over has been told before the last one's CONNACK.
            int alive = 0;
            for (var client : connected) {
                client.send(RawClient.pingReq());
                var answer = client.readOrClosed(RECEIVE);
                if (answer.isPresent() && answer.get().type() == RawClient.PINGRESP) {
                    alive++;
                } else if (answer.isPresent()) {
                    assertEquals(RawClient.DISCONNECT, answer.get().type(), answer.get().toString());
                    assertEquals(0x8E, answer.get().disconnectReason());
                }
                client.close();
            }
            assertEquals(1, alive, "one connection holds the session [MQTT-3.1.4-3], of " + connected.size() + " answered");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(10)
    void eachNodesSysTopicsAreItsOwnAndTheClustersTotalsCountEveryNode() throws Exception {
        var busy = new ArrayList<V3Client>();
        try (var watcher = V3Client.connect(nodes.get(0).port(), "sys-watch", options -> {})) {
            for (int i = 0; i < 5; i++) busy.add(V3Client.connect(nodes.get(1).port(), "busy-" + i, options -> {}));
            watcher.subscribe("$SYS/broker/clients/connected", 0);
            // Two intervals of node 1 publishing its 5 clients or more: node 0's subscriber sees node 0's count alone.
            for (var message : watcher.inbox().within(Duration.ofMillis(2_500))) {
                assertTrue(Integer.parseInt(message.text()) < 5, "node 0 has fewer than 5 clients: " + message.text());
            }
            // And the cluster's total counts every node's: the watcher and node 1's five.
            watcher.subscribe("$SYS/broker/cluster/clients/connected", 0);
            var total = new String[1];
            Eventually.await(RECEIVE, () -> "$SYS/broker/cluster/clients/connected to say 6, not " + total[0], () -> {
                for (var message : watcher.inbox().within(Duration.ofMillis(500))) {
                    if (message.topic().equals("$SYS/broker/cluster/clients/connected")) total[0] = message.text();
                }
                return "6".equals(total[0]);
            });
            // Each node's own counts, for the status page's table of nodes: three nodes up.
            watcher.subscribe("$SYS/broker/cluster/node/+/state", 0);
            var states = new java.util.TreeMap<String, String>();
            Eventually.await(RECEIVE, () -> "the states of three nodes: " + states, () -> {
                for (var message : watcher.inbox().within(Duration.ofMillis(500))) {
                    if (message.topic().endsWith("/state")) states.put(message.topic(), message.text());
                }
                return states.size() >= 3;
            });
            assertEquals(List.of("up", "up", "up"), List.copyOf(states.values()), states.toString());
        } finally {
            for (var client : busy) client.close();
        }
    }

    /** The status page of node 0 in headless Chromium: its Cluster section lists the three nodes, and the rates move. */
    @Test
    @Order(11)
    void theStatusPageListsEveryNodeWithItsRates() throws Exception {
        NodeScript.assumeChromium();
        var node = nodes.get(0);
        var webSocket = WEBSOCKET.matcher(node.log());
        assertTrue(webSocket.find(), node.log());
        Path screenshot = Path.of("target", "status-page-cluster.png").toAbsolutePath();
        NodeScript.assertPasses("status-page.mjs", Duration.ofSeconds(140),
                "--page", "http://127.0.0.1:" + webSocket.group(1) + "/", "--load", "mqtt://127.0.0.1:" + node.port(),
                "--expect-shards", "2", "--expect-nodes", "3", "--screenshot", screenshot.toString(), "--timeout", "120");
    }

    @Test
    @Order(12)
    void noNodeLoggedAnError() throws Exception {
        for (var node : nodes) assertFalse(node.log().contains(" ERROR "), node.log());  // a message Pekko could not (de)serialize, say
    }

    @Test
    @Order(13)
    void theShardsOfAKilledNodeAreForgottenAndTheOthersRouteOn() throws Exception {
        var doomed = nodes.get(2);
        // A client of the node to kill with a will, kept by a keeper on another node; and one that left normally.
        var mortal = V3Client.connect(doomed.port(), "lost-will", o -> o.setWill("routing/lost-will", bytes("lost"), 1, false));
        var calm = V3Client.connect(doomed.port(), "calm-will", o -> o.setWill("routing/lost-will", bytes("calm"), 1, false));
        calm.disconnect();  // DISCONNECT: its will is discarded [MQTT-3.14.4-3], here and at its keeper
        calm.close();
        var watcher = V3Client.connect(nodes.get(0).port(), "lost-will-watch", options -> {});
        watcher.subscribe("routing/lost-will", 1);
        // A subscriber on the node to kill: its node's shards are forwarded to until they are gone.
        var lost = V3Client.connect(doomed.port(), "doomed-sub", options -> {});
        lost.subscribe("routing/after/#", 1);
        nodes.remove(2);
        long killedAt = System.nanoTime();
        doomed.kill();
        var will = watcher.inbox().next(DOWN);  // once the node is downed and its shards are gone
        System.out.printf("ClusterRoutingIT: the will of a client of a killed node reached a subscriber on another node"
                + " %d ms after SIGKILL%n", (System.nanoTime() - killedAt) / 1_000_000);
        assertEquals("lost", will.text());
        for (var node : nodes) {
            node.awaitLog("Mesh: 2 shards of other nodes (0 joined, 2 gone)", 1, DOWN);
            // Gone once downed and removed, not when only unreachable: a node that comes back still has its clients.
            var log = node.log();
            assertTrue(log.indexOf(" was downed") >= 0 && log.indexOf(" was downed") < log.indexOf("(0 joined, 2 gone)"), log);
        }
        watcher.inbox().expectNothing(Duration.ofSeconds(1));  // once, and not the will of the client that left normally
        watcher.close();
        mortal.close();
        try (var subscriber = V3Client.connect(nodes.get(1).port(), "after-sub", options -> {});
             var publisher = V3Client.connect(nodes.get(0).port(), "after-pub", options -> {})) {
            subscriber.subscribe("routing/after/#", 1);  // its SUBACK waits for no shard of the lost node
            publisher.publish("routing/after/1", bytes("on"), 1, false);
            assertEquals("on", subscriber.inbox().next(Inbox.TIMEOUT).text());
        }
        // No exception of the broker's; Artery's own attempts to reach the killed node until it is removed may say
        // "StreamTcpException: ... ConnectException: Connection refused", depending on timing.
        var exceptions = nodes.get(0).log().lines().filter(line -> line.contains("Exception") && !line.contains("StreamTcpException")).toList();
        assertEquals(List.of(), exceptions, nodes.get(0).log());
    }

    @Test
    @Order(14)
    void aNodeThatJoinsLaterCatchesUpOnTheRetainedMessages() throws Exception {
        var first = nodes.get(0);
        var self = java.util.regex.Pattern.compile("Cluster: this node is (\\S+),").matcher(first.log());
        assertTrue(self.find(), first.log());
        var late = ClusterNodes.start("""
                listeners = [{ host = "127.0.0.1", port = 0 }]
                shards = 2
                cluster { enabled = true, port = 0, seed-nodes = ["%s"], downing.stable-after = 2s }
                """.formatted(self.group(1)));
        nodes.add(late);
        late.awaitLog("Mesh: 4 shards of other nodes", 1, FORM);
        try (var subscriber = V3Client.connect(late.port(), "late-sub", options -> {})) {
            subscriber.subscribe("routing/retained", 1);  // retained on node 0 before this node existed
            var message = subscriber.inbox().next(Inbox.TIMEOUT);
            assertEquals("kept", message.text());
            assertTrue(message.retained());
        }
    }
}
