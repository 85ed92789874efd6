package io.pekquitto.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.node.Leaving;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.node.NodeMesh;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.shard.ShardCommand;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes in one JVM, each with one shard (a probe): the mesh tells a node's shards of the other node's shard when
 * it joins, and, once that node left the cluster, that it is gone and left (its clients' wills are not the others'
 * to publish: docs/cluster.md, Wills across nodes); a node that leaves lists its shard as leaving, every node takes up
 * the ring without it, and its shard is told to hand its sessions on (docs/cluster.md, A node leaving).
 */
class ClusterMeshTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    private final ActorTestKit first = node();
    private final ActorTestKit second = node();

    private static ActorTestKit node() {
        var settings = BrokerSettings.parse("cluster { enabled = true, port = 0 }").cluster();
        return ActorTestKit.create(ClusterConfig.SYSTEM_NAME, ClusterConfig.of(settings, 1024 * 1024)
                .withFallback(ActorTestKit.applicationTestConfig()));
    }

    @AfterEach
    void stop() {
        second.shutdownTestKit();
        first.shutdownTestKit();
    }

    /** The node's one shard, named as a broker names it, telling {@code probe} what it is told; and the node's mesh. */
    private static ActorRef<ClusterMesh.Command> meshOf(ActorTestKit node, TestProbe<ShardMessage> probe) {
        var shard = node.<ShardMessage>spawn(Behaviors.receiveMessage(message -> {
            probe.ref().tell(message);
            return Behaviors.same();
        }), "shard-0");
        var peers = new MeshPeers(1, Cluster.get(node.system()).selfMember().address().hostPort(), true);
        peers.local(List.of(shard));
        NodeMesh.get(node.system()).publish(peers);
        return node.spawn(ClusterMesh.create(), "cluster-mesh");
    }

    @Test
    void aNodeThatLeavesIsGoneAndLeft() {
        var firstCluster = Cluster.get(first.system());
        firstCluster.manager().tell(Join.create(firstCluster.selfMember().address()));
        var secondCluster = Cluster.get(second.system());
        secondCluster.manager().tell(Join.create(firstCluster.selfMember().address()));
        var told = first.<ShardMessage>createTestProbe();
        meshOf(first, told);
        meshOf(second, second.createTestProbe());

        var joined = (ShardCommand.PeersChanged) told.fishForMessage(WITHIN, message ->
                message instanceof ShardCommand.PeersChanged changed && !changed.joined().isEmpty()
                        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).get(0);
        assertEquals(List.of(), joined.left());
        int other = joined.joined().get(0);

        secondCluster.manager().tell(Leave.create(secondCluster.selfMember().address()));
        var gone = (ShardCommand.PeersChanged) told.fishForMessage(WITHIN, message ->
                message instanceof ShardCommand.PeersChanged changed && !changed.gone().isEmpty()
                        ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).get(0);
        assertEquals(List.of(other), gone.gone());
        assertEquals(List.of(other), gone.left(), "it left: it published its clients' wills itself");
    }

    @Test
    void aNodeThatLeavesListsItsShardsAsLeavingAndTheyHandTheirSessionsOnBeforeItLeaves() {
        var firstCluster = Cluster.get(first.system());
        firstCluster.manager().tell(Join.create(firstCluster.selfMember().address()));
        Cluster.get(second.system()).manager().tell(Join.create(firstCluster.selfMember().address()));
        var stays = first.<ShardMessage>createTestProbe();
        var leaves = second.<ShardMessage>createTestProbe();
        meshOf(first, stays);
        var leaving = meshOf(second, leaves);
        int other = joined(stays).joined().get(0);
        joined(leaves);

        var handedOn = second.<Done>createTestProbe();
        leaving.tell(new ClusterMesh.Leave(handedOn.ref()));
        assertEquals(List.of(other), leavingChange(stays).leaving(), "the other node takes up a ring without it");
        assertEquals(List.of(0), leavingChange(leaves).leaving(), "and so does the node itself, first");
        var evacuate = (Leaving.Evacuate) leaves.expectMessageClass(Leaving.Evacuate.class, WITHIN);
        handedOn.expectNoMessage(Duration.ofMillis(200));
        evacuate.replyTo().tell(new Leaving.Evacuated(0));
        handedOn.expectMessage(WITHIN, Done.done());
    }

    private static ShardCommand.PeersChanged joined(TestProbe<ShardMessage> shard) {
        return (ShardCommand.PeersChanged) shard.fishForMessage(WITHIN, message -> message instanceof ShardCommand.PeersChanged changed
                && !changed.joined().isEmpty() ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).get(0);
    }

    private static ShardCommand.PeersChanged leavingChange(TestProbe<ShardMessage> shard) {
        return (ShardCommand.PeersChanged) shard.fishForMessage(WITHIN, message -> message instanceof ShardCommand.PeersChanged changed
                && !changed.leaving().isEmpty() ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore()).get(0);
    }
}
