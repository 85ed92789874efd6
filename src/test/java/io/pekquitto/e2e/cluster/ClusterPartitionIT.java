package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25's partition: three runnable jars, each on a loopback address of its own (127.0.0.1, .2, .3), each node's
 * cluster port behind an in-test proxy ({@link LinkProxy}: the node's canonical address; the node binds another,
 * {@code cluster.bind-port}, and its links to the others leave from its own address). The links between node C and the
 * two others are cut, both ways: the Split Brain Resolver ({@code keep-majority}) keeps A and B, which down C; C, the
 * minority, downs itself and exits with status 1, so that there are never two clusters; its MQTT client reconnects to
 * A and is served, and a publish on B reaches it.
 */
@Timeout(180)
class ClusterPartitionIT {
    private static final Duration FORM = Duration.ofSeconds(60);
    private static final Duration DOWN = Duration.ofSeconds(60);
    private static final String[] HOSTS = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};

    @Test
    void theMinoritySideOfAPartitionIsDownedAndItsClientsReconnectToTheMajority() throws Exception {
        int[] canonical = new int[3];
        int[] bind = new int[3];
        var proxies = new ArrayList<LinkProxy>();
        var configurations = new ArrayList<String>();
        var jvmOptions = new ArrayList<List<String>>();
        for (int i = 0; i < 3; i++) {
            canonical[i] = ClusterNodes.freePort();
            bind[i] = ClusterNodes.freePort();
        }
        var seeds = "[\"%s:%d\", \"%s:%d\", \"%s:%d\"]".formatted(HOSTS[0], canonical[0], HOSTS[1], canonical[1], HOSTS[2], canonical[2]);
        List<RunnableJar> nodes = List.of();
        try {
            for (int i = 0; i < 3; i++) {
                proxies.add(new LinkProxy(HOSTS[i], canonical[i], bind[i]));
                configurations.add("""
                        listeners = [{ host = "127.0.0.1", port = 0 }]
                        shards = 1
                        cluster { enabled = true, host = "%s", port = %d, bind-port = %d, seed-nodes = %s, downing.stable-after = 2s }
                        """.formatted(HOSTS[i], canonical[i], bind[i], seeds));
                // Its links to the others leave from its own address, so that their proxies know them.
                jvmOptions.add(List.of("-Dpekko.remote.artery.tcp.outbound-client-hostname=" + HOSTS[i]));
            }
            nodes = ClusterNodes.startAll(configurations, jvmOptions);
            for (var node : nodes) node.awaitLog("Mesh: 2 shards of other nodes", 1, FORM);
            var a = nodes.get(0);
            var b = nodes.get(1);
            var c = nodes.get(2);
            var client = V3Client.connect(c.port(), "partitioned", options -> options.setCleanSession(false));
            client.subscribe("partition/t", 1);
            publish(b, "before");
            assertEquals("before", client.inbox().next(Inbox.TIMEOUT).text(), "one cluster: from B to a client of C");

            for (var proxy : proxies) proxy.cut(HOSTS[2]);  // C's links, both ways
            assertEquals(1, c.awaitExit(DOWN), "the minority downs itself: " + c.log());
            assertTrue(c.log().contains("this node was downed"), c.log());
            for (var node : List.of(a, b)) node.awaitLog("Mesh: 1 shards of other nodes (0 joined, 1 gone)", 1, DOWN);
            assertTrue(a.log().contains(" was downed"), a.log());
            client.close();

            try (var back = V3Client.connect(a.port(), "partitioned", options -> options.setCleanSession(false))) {
                back.subscribe("partition/t", 1);
                publish(b, "after");
                assertEquals("after", back.inbox().next(Inbox.TIMEOUT).text(), "served by the majority");
            }
        } finally {
            ClusterNodes.stopAll(new ArrayList<>(nodes));
            for (var proxy : proxies) proxy.close();
        }
    }

    private static void publish(RunnableJar node, String text) throws Exception {
        try (var publisher = V3Client.connect(node.port(), "partition-pub", options -> {})) {
            publisher.publish("partition/t", text.getBytes(StandardCharsets.UTF_8), 1, false);
        }
    }
}
