package io.pekquitto.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.cluster.ClusterMember.Status;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** A node of its own (no seed nodes, any free port) joins itself, comes up, and says so. */
class ClusterMembershipTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create(ClusterConfig.SYSTEM_NAME, ClusterConfig.of(
            BrokerSettings.parse("cluster { enabled = true, port = 0 }").cluster(), 1024 * 1024).withFallback(ActorTestKit.applicationTestConfig()));

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @Test
    void aNodeWithoutSeedNodesFormsAClusterOfItsOwn() throws Exception {
        var figures = new ClusterFigures();
        var settings = BrokerSettings.parse("cluster { enabled = true, port = 0 }").cluster();
        var broker = TESTKIT.<io.pekquitto.shards.broker.BrokerCommand>createTestProbe().ref();  // no figures: no totals
        var node = ClusterNode.start(TESTKIT.system(), broker, settings, figures, Duration.ofSeconds(1), Duration.ofSeconds(10));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<ClusterMember> members = List.of();
        while (System.nanoTime() < deadline) {
            members = node.members().toCompletableFuture().get();
            if (members.size() == 1 && members.get(0).status() == Status.UP) break;
            Thread.sleep(50);
        }
        assertEquals(1, members.size(), members.toString());
        var self = members.get(0);
        assertEquals(Status.UP, self.status());
        assertTrue(self.self() && self.reachable(), self.toString());
        assertTrue(self.address().startsWith("127.0.0.1:"), self.address());
        assertEquals("1", figures.topics().get("cluster/nodes"));
        TESTKIT.spawn(Behaviors.empty());  // the system still serves
    }
}
