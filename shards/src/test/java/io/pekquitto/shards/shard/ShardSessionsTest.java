package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.store.ShardPersistence;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The shard's hands for the session rules: each effect they decide is done (a connection told, a subscription indexed
 * and announced, a transfer sent to its shard or handled here at once). Shard 0 of a node of two; the shard's parts
 * are the real ones, its peer and the connections Pekko test probes; no store, no timers.
 */
class ShardSessionsTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(100);
    private static final SubscriptionEntry QOS1 = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);

    private final TestProbe<ShardMessage> self = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> peer = TESTKIT.createTestProbe();
    private final TestProbe<Connection.Command> firstProbe = TESTKIT.createTestProbe();
    private final TestProbe<Connection.Command> secondProbe = TESTKIT.createTestProbe();
    private final ConnectionRef first = new ConnectionRef(resumed -> {});
    private final ConnectionRef second = new ConnectionRef(resumed -> {});
    private final MeshPeers peers = new MeshPeers(2);
    private final Mesh mesh = new Mesh();
    private final TopicRoutes routes = new TopicRoutes();
    private final Sessions<ConnectionRef> sessions = new Sessions<>(id -> new Session(id, 100, false));
    private ShardSessions shardSessions;

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @BeforeEach
    void start() {
        peers.local(List.of(self.ref(), peer.ref()));
        routes.joinMesh(0, peers.size());
        mesh.join(0, peers);
        assertInstanceOf(ControlMessage.Hello.class, control(peer));
        sessions.joinMesh(0, mesh.ring());
        var persistence = new ShardPersistence(Optional.empty(), () -> 0L, () -> 0L, () -> {});
        var draining = new ReleaseDraining<ConnectionRef>();
        var router = new Router(sessions, draining, routes, new RetainedMessages(true), mesh, persistence, () -> {});
        shardSessions = new ShardSessions(sessions, draining, routes, mesh, router, persistence, null, () -> 0L,
                id -> new Session(id, 100, false), LoggerFactory.getLogger(ShardSessionsTest.class));
        ShardCrossings.wire(routes, mesh, router, shardSessions, shardSessions::receive);
        first.bind(firstProbe.ref());
        second.bind(secondProbe.ref());
    }

    private static ControlMessage control(TestProbe<ShardMessage> probe) {
        return probe.expectMessageClass(ShardCommand.Control.class).message();
    }

    /** A client id whose home is {@code shard}. */
    private String clientHomedOn(int shard) {
        return IntStream.range(0, 1_000).mapToObj(i -> "client-" + i).filter(id -> mesh.ring().homeOf(id) == shard)
                .findFirst().orElseThrow();
    }

    private void connect(String clientId, ConnectionRef connection) {
        shardSessions.perform(sessions.connect(clientId, connection, true, 0));
    }

    @Test
    void aClientWhoseHomeIsThisShardIsAttachedInOneTurn() {
        connect(clientHomedOn(0), first);
        var attached = firstProbe.expectMessageClass(Connection.Attached.class);
        assertFalse(attached.sessionPresent());
        peer.expectNoMessage(QUIET);
    }

    @Test
    void aClientWhoseHomeIsThePeerIsClaimedThere() {
        connect(clientHomedOn(1), first);
        var sent = assertInstanceOf(ControlMessage.Sessions.class, control(peer));
        assertInstanceOf(SessionTransfer.Claim.class, sent.transfer());
        firstProbe.expectNoMessage(QUIET);
    }

    @Test
    void aSecondConnectionTakesTheFirstOver() {
        var clientId = clientHomedOn(0);
        connect(clientId, first);
        firstProbe.expectMessageClass(Connection.Attached.class);
        connect(clientId, second);
        assertEquals(Connection.TakenOver.INSTANCE, firstProbe.expectMessageClass(Connection.TakenOver.class));
    }

    @Test
    void whileTheNodeLeavesATakenOverConnectionHearsTheServerShutDown() {
        var clientId = clientHomedOn(0);
        connect(clientId, first);
        firstProbe.expectMessageClass(Connection.Attached.class);
        shardSessions.leaving();
        connect(clientId, second);
        assertEquals(Connection.ServerShuttingDown.INSTANCE, firstProbe.expectMessageClass(Connection.ServerShuttingDown.class));
    }

    @Test
    void aRefusalIsToldToItsConnection() {
        shardSessions.perform(List.of(new SessionEffect.Refuse<>(first, ReasonCode.SERVER_BUSY, "busy")));
        assertEquals(new Connection.Refused(ReasonCode.SERVER_BUSY, "busy"), firstProbe.expectMessageClass(Connection.Refused.class));
    }

    @Test
    void aSessionsSubscriptionIsIndexedAndAnnouncedAndItsUnsubscriptionWithdrawn() {
        shardSessions.perform(List.of(new SessionEffect.Subscribe<>("arrived", "a/#", QOS1)));
        assertEquals(List.of("arrived"), routes.routeFor("a/b").local().stream().map(match -> match.clientId()).toList());
        assertEquals(new ControlMessage.Routes(new RouteChange.InterestAdded("a/#")), control(peer));
        shardSessions.perform(List.of(new SessionEffect.Unsubscribe<>("arrived", "a/#")));
        assertEquals(List.of(), routes.routeFor("a/b").local());
        assertEquals(new ControlMessage.Routes(new RouteChange.InterestRemoved("a/#")), control(peer));
    }

    @Test
    void aTransferForThePeerAndTheHomesOfItsClientsGoToIt() {
        var claim = new SessionTransfer.Claim("elsewhere", 0, 1);
        var holders = List.of(Map.entry("held", new SessionTransfer.Successor(0, 3)));
        shardSessions.perform(List.of(new SessionEffect.Transfer<>(1, claim), new SessionEffect.Homes<>(1, 2, 1, holders)));
        assertEquals(new ControlMessage.Sessions(claim), control(peer));
        assertEquals(new ControlMessage.Homes(2, 1, holders), control(peer));
    }

    @Test
    void whatWaitsForThePeersSendsThemABarrier() {
        shardSessions.perform(List.of(new SessionEffect.AwaitPeers<>("client", 9)));
        assertInstanceOf(ControlMessage.Sync.class, control(peer), "a barrier to the peer");
    }
}
