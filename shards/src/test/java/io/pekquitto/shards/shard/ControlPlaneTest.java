package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.store.ShardPersistence;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What shard 0 does with its peers' control messages (docs/shards-and-mesh.md, The control plane): their route
 * changes, barriers, a restarted peer's Hello and its Resync, and a node that leaves. A node of two shards with a
 * shard of another node; the shard's parts are the real ones, its peers Pekko test probes; no store.
 */
class ControlPlaneTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(100);

    private final TestProbe<ShardMessage> self = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> peer = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> remote = TESTKIT.createTestProbe();
    private final MeshPeers peers = new MeshPeers(2);
    private final Mesh mesh = new Mesh();
    private final TopicRoutes routes = new TopicRoutes();
    private final Sessions<ConnectionRef> sessions = new Sessions<>(id -> new Session(id, 100, false));
    private ControlPlane controlPlane;
    private int remoteId;

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @BeforeEach
    void start() {
        peers.local(List.of(self.ref(), peer.ref()));
        remoteId = peers.remoteId("pekquitto@10.0.0.2:25520", 0);
        routes.joinMesh(0, peers.size());
        mesh.join(0, peers);
        assertInstanceOf(ControlMessage.Hello.class, control(peer));
        peers.remote(remoteId, remote.ref());
        mesh.joined(remoteId);
        assertInstanceOf(ControlMessage.Hello.class, control(remote));
        sessions.joinMesh(0, mesh.ring());
        var persistence = new ShardPersistence(Optional.empty(), () -> 0L, () -> 0L, () -> {});
        var draining = new ReleaseDraining<ConnectionRef>();
        var router = new Router(sessions, draining, routes, new RetainedMessages(true), mesh, persistence, () -> {});
        var shardSessions = new ShardSessions(sessions, draining, routes, mesh, router, persistence, null, () -> 0L,
                id -> new Session(id, 100, false), LoggerFactory.getLogger(ControlPlaneTest.class));
        var crossings = ShardCrossings.wire(routes, mesh, router, shardSessions, shardSessions::receive);
        controlPlane = new ControlPlane(routes, sessions, mesh, new DurableTurns(persistence, mesh), shardSessions, router,
                crossings, () -> 0L);
    }

    private static ControlMessage control(TestProbe<ShardMessage> probe) {
        return probe.expectMessageClass(ShardCommand.Control.class).message();
    }

    private int[] remoteShardsFor(String topic) {
        return routes.routeFor(topic).remoteShards();
    }

    @Test
    void aSyncIsAnsweredWithItsToken() {
        controlPlane.receive(1, new ControlMessage.Sync(7));
        assertEquals(new ControlMessage.SyncAck(7), control(peer));
        remote.expectNoMessage(QUIET);
    }

    @Test
    void aBarrierGoesOnOnceEveryPeerAnswered() {
        var ran = new int[1];
        mesh.afterPeersApplied(() -> ran[0]++);
        long token = ((ControlMessage.Sync) control(peer)).token();
        assertEquals(new ControlMessage.Sync(token), control(remote));
        controlPlane.receive(1, new ControlMessage.SyncAck(token));
        assertEquals(0, ran[0], "the shard of the other node has not answered");
        controlPlane.receive(remoteId, new ControlMessage.SyncAck(token));
        assertEquals(1, ran[0]);
    }

    @Test
    void aPeersRouteChangesAreApplied() {
        controlPlane.receive(1, new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")));
        assertArrayEquals(new int[] {1}, remoteShardsFor("a/b"));
        controlPlane.receive(1, new ControlMessage.Routes(new RouteChange.InterestRemoved("a/#")));
        assertArrayEquals(new int[] {}, remoteShardsFor("a/b"));
    }

    @Test
    void aRestartedPeersHelloForgetsWhatItAnnouncedAndTellsItWhatThisShardDid() {
        routes.subscribe("sub", "mine/#", new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
        controlPlane.receive(1, new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")));
        controlPlane.receive(1, new ControlMessage.Hello());
        assertArrayEquals(new int[] {}, remoteShardsFor("a/b"), "what it announced before it restarted");
        var resync = assertInstanceOf(ControlMessage.Resync.class, control(peer));
        assertTrue(resync.routes().contains(new RouteChange.InterestAdded("mine/#")), () -> "this shard's interest: " + resync);
    }

    @Test
    void aResyncReplacesWhatThePeerAnnouncedBefore() {
        controlPlane.receive(1, new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")));
        controlPlane.receive(1, new ControlMessage.Resync(List.of(new RouteChange.InterestAdded("b/#")), List.of()));
        assertArrayEquals(new int[] {}, remoteShardsFor("a/x"));
        assertArrayEquals(new int[] {1}, remoteShardsFor("b/x"));
    }

    @Test
    void aShardWhoseNodeLeftIsForgottenAndNothingWaitsForIt() {
        controlPlane.receive(remoteId, new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")));
        var ran = new int[1];
        mesh.afterPeersApplied(() -> ran[0]++);
        long token = ((ControlMessage.Sync) control(peer)).token();
        control(remote);
        controlPlane.receive(1, new ControlMessage.SyncAck(token));
        controlPlane.peersChanged(new ShardCommand.PeersChanged(List.of(), List.of(remoteId), List.of(), List.of(), List.of()));
        assertArrayEquals(new int[] {}, remoteShardsFor("a/b"), "its routes");
        assertEquals(1, ran[0], "the barrier that waited for it");
    }
}
