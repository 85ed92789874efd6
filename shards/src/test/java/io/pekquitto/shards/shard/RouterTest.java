package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.SessionCrossings;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.store.ShardPersistence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where one shard's router sends a message: batched per connection until the turn's flush, to the peers with
 * matching interest (every peer for a retained one, this node's shards alone for $SYS), and never back out for a
 * message a peer forwarded here. Shard 0 of a node of two, with a shard of another node; no store.
 */
class RouterTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(100);
    private static final SubscriptionEntry QOS1 = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);

    private final TestProbe<ShardMessage> self = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> peer = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> remote = TESTKIT.createTestProbe();
    private final TestProbe<Connection.Command> connection = TESTKIT.createTestProbe();
    private final MeshPeers peers = new MeshPeers(2);
    private final Mesh mesh = new Mesh();
    private final Sessions<ConnectionRef> sessions = new Sessions<>(id -> new Session(id, 100, false));
    private final TopicRoutes routes = new TopicRoutes();
    private final RetainedMessages retained = new RetainedMessages(true);
    private final ShardPersistence persistence = new ShardPersistence(Optional.empty(), () -> 0L, () -> 0L, () -> {});
    private final ConnectionRef subscriber = new ConnectionRef(resumed -> {});
    private int flushesAsked;
    private Router router;
    private int remoteId;

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @BeforeEach
    void start() {
        peers.local(List.of(self.ref(), peer.ref()));
        remoteId = peers.remoteId("pekquitto@10.0.0.2:25520", 0);
        mesh.join(0, peers);
        assertInstanceOf(ControlMessage.Hello.class, peer.expectMessageClass(ShardCommand.Control.class).message());
        peers.remote(remoteId, remote.ref());
        mesh.joined(remoteId);
        assertInstanceOf(ControlMessage.Hello.class, remote.expectMessageClass(ShardCommand.Control.class).message());
        sessions.joinMesh(0, 1);  // the client's home is this shard: it connects in one turn
        router = new Router(sessions, new ReleaseDraining<>(), routes, retained, mesh, persistence, () -> flushesAsked++);
        router.crossings(new SessionCrossings(new NoCrossings()));
        subscriber.bind(connection.ref());
    }

    /** Client {@code sub} attached here through {@link #subscriber}, subscribed to {@code filter}. */
    private void subscribe(String filter) {
        var effects = selfTransfersResolved(sessions.connect("sub", subscriber, true, 0));
        assertTrue(effects.stream().anyMatch(SessionEffect.Attach.class::isInstance), () -> "attached: " + effects);
        routes.subscribe("sub", filter, QOS1);
    }

    /** The session rules' effects, the transfers this shard sends itself handled as the shard handles them. */
    private List<SessionEffect<ConnectionRef>> selfTransfersResolved(List<SessionEffect<ConnectionRef>> effects) {
        var visible = new ArrayList<SessionEffect<ConnectionRef>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<ConnectionRef> transfer) {
                visible.addAll(selfTransfersResolved(sessions.receive(transfer.message(), 0)));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }

    private static Message message(String topic, boolean retain) {
        return Message.received(topic, Binary.utf8(topic), QoS.AT_LEAST_ONCE, retain, Properties.NONE, 0);
    }

    private static List<String> topics(List<Forwarded> items) {
        return items.stream().map(item -> Forwarded.messageOf(item).topic()).toList();
    }

    private List<String> deliveredTopics() {
        return connection.expectMessageClass(Connection.Deliver.class).messages().stream().map(Message::topic).toList();
    }

    @Test
    void aTurnsMessagesForOneConnectionGoOutAsOneDeliveryAtTheFlush() {
        subscribe("t/#");
        router.route("pub", message("t/1", false));
        router.route("pub", message("t/2", false));
        connection.expectNoMessage(QUIET);
        assertEquals(1, flushesAsked, "one flush asked for the turn, at its first delivery");
        router.flush();
        assertEquals(List.of("t/1", "t/2"), deliveredTopics());
        router.flush();
        connection.expectNoMessage(QUIET);
    }

    @Test
    void aPublishGoesToThePeersWithMatchingInterestAlone() {
        routes.applyPeerChange(1, new RouteChange.InterestAdded("t/#"));
        router.route("pub", message("t/1", false));
        router.route("pub", message("other", false));
        router.flush();
        var forward = peer.expectMessageClass(ShardCommand.Forward.class);
        assertEquals(0, forward.from());
        assertEquals(List.of("t/1"), topics(forward.items()));
        peer.expectNoMessage(QUIET);
        remote.expectNoMessage(QUIET);
    }

    @Test
    void aRetainedPublishGoesToEveryPeerForItsCopy() {
        router.route("pub", message("kept", true));
        router.flush();
        assertEquals(List.of("kept"), topics(peer.expectMessageClass(ShardCommand.Forward.class).items()));
        assertEquals(List.of("kept"), topics(remote.expectMessageClass(ShardCommand.Forward.class).items()));
    }

    @Test
    void aSysPublishGoesToThisNodesShardsAlone() {
        routes.applyPeerChange(1, new RouteChange.InterestAdded("$SYS/#"));
        routes.applyPeerChange(remoteId, new RouteChange.InterestAdded("$SYS/#"));
        router.route("", message("$SYS/broker/uptime", true));
        router.route("", message("$SYS/broker/load", false));
        router.flush();
        assertEquals(List.of("$SYS/broker/uptime", "$SYS/broker/load"), topics(peer.expectMessageClass(ShardCommand.Forward.class).items()));
        remote.expectNoMessage(QUIET);
    }

    @Test
    void aMessageAPeerForwardedIsDeliveredHereAndKeptNotSentOn() {
        subscribe("t/#");
        routes.applyPeerChange(remoteId, new RouteChange.InterestAdded("t/#"));
        router.forwarded(1, new Forwarded.Published("pub", message("t/1", true)));
        router.flush();
        assertEquals(List.of("t/1"), deliveredTopics());
        assertEquals(List.of("t/1"), retained.all().stream().map(Message::topic).toList(), "this shard's copy");
        peer.expectNoMessage(QUIET);
        remote.expectNoMessage(QUIET);
    }

    @Test
    void aJoiningNodeCatchesUpOnTheRetainedMessagesButSys() {
        retained.retain(message("kept", true));
        retained.retain(message("$SYS/broker/version", true));
        router.catchUp(remoteId);
        router.flush();
        var items = remote.expectMessageClass(ShardCommand.Forward.class).items();
        assertInstanceOf(Forwarded.Retained.class, items.get(0));
        assertEquals(List.of("kept"), topics(items));
    }

    @Test
    void whatIsBatchedForAConnectionGoesBeforeWhatMustComeAfter() {
        subscribe("t/#");
        router.route("pub", message("t/1", false));
        router.flushTo(subscriber);
        assertEquals(List.of("t/1"), deliveredTopics());
        router.route("pub", message("t/2", false));
        assertEquals(List.of("t/2"), router.takeUnsent(subscriber).stream().map(Message::topic).toList(),
                "taken back, for a connection that let its session go");
        router.flush();
        connection.expectNoMessage(QUIET);
    }

    @Test
    void theDrainedMessagesOfASessionThatMovedOnFollowItToItsShard() {
        router.redeliver(new ReleaseDraining.Drained("gone", List.of(message("t/1", false), message("t/2", false)), 1));
        router.flush();
        var items = peer.expectMessageClass(ShardCommand.Forward.class).items();
        assertEquals(List.of("t/1", "t/2"), topics(items));
        assertTrue(items.stream().allMatch(item -> item instanceof Forwarded.ToClient toClient && toClient.clientId().equals("gone")),
                () -> "for the client alone: " + items);
    }

    /** No session crosses between shards in these tests. */
    private static final class NoCrossings implements SessionCrossings.Actions {
        @Override public void forward(int shard, String clientId, Message message) {}
        @Override public void cutPassed(int shard, String clientId, int peer) {}
        @Override public void unsubscribe(String clientId, String filter) {}
        @Override public void deliver(String clientId, Message message) {}
        @Override public void transfer(SessionTransfer transfer) {}
    }
}
