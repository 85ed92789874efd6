package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.session.Message;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One shard's mesh with a peer on its node and shards of another node (docs/cluster.md, One mesh across nodes). */
class MeshTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(100);

    private final TestProbe<ShardMessage> self = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> local = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> remote = TESTKIT.createTestProbe();
    private final MeshPeers peers = new MeshPeers(2);
    private final Mesh mesh = new Mesh();
    private int remoteId;

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @BeforeEach
    void join() {
        peers.local(List.of(self.ref(), local.ref()));
        remoteId = peers.remoteId("pekquitto@10.0.0.2:25520", 0);
        mesh.join(0, peers);
        assertInstanceOf(ControlMessage.Hello.class, control(local).message());
    }

    private static ShardCommand.Control control(TestProbe<ShardMessage> probe) {
        return probe.expectMessageClass(ShardCommand.Control.class);
    }

    private void listRemote() {
        peers.remote(remoteId, remote.ref());
        mesh.joined(remoteId);
    }

    @Test
    void whatIsSentToAShardHeardFromButNotListedWaitsAndFollowsTheHelloOnceListed() {
        mesh.heardFrom(remoteId);  // its Hello came before the cluster listed it
        var resync = new ControlMessage.Resync(List.of(), List.of());
        mesh.control(remoteId, resync);
        remote.expectNoMessage(QUIET);
        listRemote();
        assertInstanceOf(ControlMessage.Hello.class, control(remote).message(), "first: it forgets what it kept of us");
        assertEquals(resync, control(remote).message(), "then what waited, which it keeps");
    }

    @Test
    void announcementsReachTheListedShardsOfOtherNodes() {
        listRemote();
        control(remote);
        mesh.announce(Optional.of(new RouteChange.InterestAdded("a/#")));
        assertEquals(new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")), control(local).message());
        var received = control(remote);
        assertEquals(0, received.from());
        assertEquals(new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")), received.message());
    }

    @Test
    void aBarrierWaitsForAListedRemoteShardUntilItAnswersOrItsNodeLeaves() {
        listRemote();
        control(remote);
        var ran = new int[1];
        mesh.afterPeersApplied(() -> ran[0]++);
        long token = ((ControlMessage.Sync) control(local).message()).token();
        assertEquals(new ControlMessage.Sync(token), control(remote).message());
        assertNull(mesh.synced(token, 1), "the remote shard has not answered");
        mesh.gone(remoteId).forEach(Runnable::run);
        assertEquals(1, ran[0], "its node left: nothing waits for it");
        mesh.announce(Optional.of(new RouteChange.InterestAdded("b")));
        control(local);
        remote.expectNoMessage(QUIET);
    }

    @Test
    void forwardsToAnotherNodeGoInBatchesOfBoundedBytes() {
        listRemote();
        control(remote);
        for (int i = 0; i < 3; i++) {
            var payload = Binary.of(new byte[(int) (MeshPeers.REMOTE_BATCH_BYTES * 2 / 3)]);
            mesh.forward(remoteId, new Forwarded.Published("p", Message.received("t", payload, QoS.AT_LEAST_ONCE, false,
                    Properties.NONE, 0)));
        }
        mesh.flush();
        for (int i = 0; i < 3; i++) assertEquals(1, remote.expectMessageClass(ShardCommand.Forward.class).items().size());
    }
}
