package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.Sessions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two shards on two nodes, each with its own store, each telling its session rules that the other is on
 * another node: a client's session moves between them through the claim protocol (Claim, Relinquish,
 * Handover), as its portable form, with its queue, its exchanges in flight both ways and its
 * subscriptions, and nothing is lost or delivered twice; the node it left keeps nothing of it.
 */
class CrossNodeHandoverTest {
    private static final long SECOND = PortableSessionTest.SECOND;
    private final AtomicLong nanos = new AtomicLong(100 * SECOND);
    private final AtomicLong wall = new AtomicLong(1_800_000_000_000L);
    /** The shards, by index: by default shard 0 on node 0 and shard 1 on node 1. */
    private final List<Node> nodes = new ArrayList<>();
    private int[] nodeOf;
    /** The mesh between the two: what each sent the other, in order. */
    private final ArrayDeque<Runnable> wire = new ArrayDeque<>();
    private final List<SessionTransfer> crossed = new ArrayList<>();
    private final List<SessionEffect<String>> performed = new ArrayList<>();
    private String client;

    /** One shard, its batch over its node's store, its session rules. */
    private record Node(int index, MemoryStore store, ShardPersistence persistence, Sessions<String> sessions) {}

    /** Shards on nodes: {@code nodeOf[shard]} is the node of each, and each node has a store of its own. */
    private void mesh(int... nodeOf) {
        this.nodeOf = nodeOf;
        var stores = new ArrayList<MemoryStore>();
        for (int shard = 0; shard < nodeOf.length; shard++) {
            while (stores.size() <= nodeOf[shard]) stores.add(new MemoryStore());
            nodes.add(node(shard, stores.get(nodeOf[shard])));
        }
    }

    /** Shard {@code index}: the shards of other nodes are remote to it. */
    private Node node(int index, MemoryStore store) {
        var persistence = new ShardPersistence(Optional.of(store), StoreHealth.none(), nanos::get, wall::get, () -> {},
                PortableSessionTest.WINDOW, false, "unused", written -> {}, failure -> {});
        var sessions = new Sessions<String>(id -> new Session(id, 1000, false), persistence.journal(), MemoryBudget.NONE,
                shard -> nodeOf[shard] != nodeOf[index], Long.MAX_VALUE);
        sessions.joinMesh(index, nodeOf.length);
        return new Node(index, store, persistence, sessions);
    }

    /** Performs a node's effects as its shard does; what goes to the other node waits on the wire. */
    private void perform(Node node, List<SessionEffect<String>> effects) {
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer && transfer.shard() == node.index()) {
                perform(node, node.sessions().receive(transfer.message(), nanos.get()));
            } else if (effect instanceof SessionEffect.Transfer<String> transfer) {
                node.persistence().flushNow();  // the Handover leaves once its shard's writes are written
                crossed.add(transfer.message());
                wire.add(() -> {
                    var to = nodes.get(transfer.shard());
                    perform(to, to.sessions().receive(transfer.message(), nanos.get()));
                });
            } else if (effect instanceof SessionEffect.AwaitPeers<String> await) {
                wire.add(() -> perform(node, node.sessions().peersApplied(await.clientId(), await.token())));
            } else {
                performed.add(effect);
            }
        }
        node.persistence().flushNow();
    }

    private void settle() {
        while (!wire.isEmpty()) wire.poll().run();
    }

    private SessionEffect.Attach<String> connect(int node, String connection) {
        performed.clear();
        perform(nodes.get(node), nodes.get(node).sessions().connect(client, connection, false, 3600));
        settle();
        return performed.stream().filter(SessionEffect.Attach.class::isInstance).map(e -> (SessionEffect.Attach<String>) e)
                .findFirst().orElseThrow(() -> new AssertionError("no Attach in " + performed));
    }

    private Message message(int n, QoS qos) {
        return Message.received("jobs/" + n, Binary.utf8("m" + n), qos, false, Properties.NONE, nanos.get());
    }

    /** A client id whose home is shard {@code home}, so that the claims cross the wire either way. */
    private String clientHomedOn(int home) {
        for (int i = 0; ; i++) if (SessionDirectory.homeOf("client-" + i, nodeOf.length) == home) return "client-" + i;
    }

    /**
     * On {@code shard}: the client subscribes twice, has m1 awaiting PUBACK, m2 awaiting PUBREC and m3 awaiting
     * PUBCOMP, 10 and 11 of its own awaiting PUBREL, and leaves a will; offline, m4 to m15 are queued for it.
     */
    private void sessionOn(int shard) {
        var first = nodes.get(shard);
        var session = connect(shard, "c1").session();
        var subscriptions = first.sessions().subscriptionsOf(client);
        subscriptions.putAll(PortableSessionTest.SUBSCRIPTIONS);
        first.sessions().subscriptionsChanged(client);
        long now = nanos.get();
        session.startFlight(message(1, QoS.AT_LEAST_ONCE), now);
        session.startFlight(message(2, QoS.EXACTLY_ONCE), now);
        session.startFlight(message(3, QoS.EXACTLY_ONCE), now);
        session.received(3);
        for (int packetId : List.of(10, 11)) {
            session.firstReceipt(packetId);
            first.persistence().journal().awaitingPubRel(client, packetId, true);
        }
        var will = PendingWill.delayed(message(0, QoS.AT_LEAST_ONCE), 30, now);
        perform(first, first.sessions().release("c1", client, session, 3600, Optional.of(will), now));
        for (int n = 4; n <= 15; n++) {
            first.sessions().deliver(client, message(n, n % 3 == 0 && n <= 13 ? QoS.EXACTLY_ONCE : QoS.AT_LEAST_ONCE));
        }
        first.persistence().flushNow();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void anOfflineSessionMovesToAShardOnAnotherNodeWholeAndBack(int home) {
        mesh(0, 1);
        client = clientHomedOn(home);
        sessionOn(0);
        crossed.clear();
        var attach = connect(1, "c2");
        assertTrue(attach.sessionPresent());
        var handover = (SessionTransfer.Handover) crossed.stream().filter(SessionTransfer.Handover.class::isInstance).findFirst().orElseThrow();
        assertInstanceOf(PortableSession.class, handover.session().orElseThrow(), "a session leaves its node portable");
        assertTrue(performed.contains(new SessionEffect.Subscribe<>(client, "jobs/+", PortableSessionTest.SUBSCRIPTIONS.get("jobs/+"))));
        assertEquals(PortableSessionTest.SUBSCRIPTIONS, nodes.get(1).sessions().subscriptionsOf(client));
        assertFalse(nodes.get(0).sessions().holds(client));
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(0).store()), "node 0's store keeps nothing of it");
        var session = attach.session();
        assertEquals(2, session.awaitingPubRelCount());

        // Back to node 0, still undelivered: the same again, and node 1 keeps nothing.
        perform(nodes.get(1), nodes.get(1).sessions().release("c2", client, session, 3600, Optional.empty(), nanos.get()));
        var back = connect(0, "c3");
        assertTrue(back.sessionPresent());
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(1).store()), "node 1's store keeps nothing of it");
        assertEquals(PortableSessionTest.expectedDeliveries(), SessionDeliveries.of(back.session(), nanos.get()),
                "every message once, in order, under the same packet identifiers and states");
        assertTrue(back.session().release(10) && back.session().release(11));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void anAttachedSessionTakenOverFromAnotherNodeFollowsItsClient(int home) {
        mesh(0, 1);
        client = clientHomedOn(home);
        var session = connect(0, "c1").session();
        session.startFlight(message(1, QoS.EXACTLY_ONCE), nanos.get());
        for (int n = 2; n <= 9; n++) nodes.get(0).sessions().deliver(client, message(n, QoS.AT_LEAST_ONCE));
        performed.clear();
        perform(nodes.get(1), nodes.get(1).sessions().connect(client, "c2", false, 3600));
        settle();
        assertTrue(performed.contains(new SessionEffect.TakeOver<>("c1")), "[MQTT-3.1.4-3] " + performed);
        // c1's connection gives its session back (what was routed to it it queued): it goes to node 1.
        for (int n = 2; n <= 9; n++) session.enqueue(message(n, QoS.AT_LEAST_ONCE), false);
        perform(nodes.get(0), nodes.get(0).sessions().release("c1", client, session, 3600, Optional.empty(), nanos.get()));
        settle();
        var attach = performed.stream().filter(SessionEffect.Attach.class::isInstance).map(e -> (SessionEffect.Attach<?>) e)
                .findFirst().orElseThrow();
        assertEquals("c2", attach.connection());
        var expected = new ArrayList<>(List.of("PUBLISH 1 dup EXACTLY_ONCE m1"));
        for (int n = 2; n <= 9; n++) expected.add("AT_LEAST_ONCE m" + n);
        assertEquals(expected, SessionDeliveries.of(attach.session(), nanos.get()));
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(0).store()));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void aSessionArrivingForAClaimLostWithARestartedShardIsKeptInItsStore(int home) {
        mesh(0, 1);
        client = clientHomedOn(home);
        sessionOn(0);
        perform(nodes.get(1), nodes.get(1).sessions().connect(client, "c2", false, 3600));
        // Node 1's shard restarts (its state gone, its store and mailbox kept) before the session arrives.
        var restarted = node(1, nodes.get(1).store());
        restarted.sessions().restarted();
        nodes.set(1, restarted);
        settle();
        perform(nodes.get(0), nodes.get(0).sessions().peerRestarted(1));  // its Hello: node 0 forgets its claims
        settle();
        assertFalse(restarted.sessions().holds(client));
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(0).store()));
        var attach = connect(1, "c3");
        assertTrue(attach.sessionPresent(), "its store gave it back");
        assertEquals(PortableSessionTest.expectedAfterRecovery(), SessionDeliveries.of(attach.session(), nanos.get()));
    }

    /** Two connections race: each CONNECT's claim goes out before the session has moved. */
    private SessionEffect.Attach<String> raceFor(int shard, int otherShard) {
        performed.clear();
        perform(nodes.get(shard), nodes.get(shard).sessions().connect(client, "c2", false, 3600));
        perform(nodes.get(otherShard), nodes.get(otherShard).sessions().connect(client, "c3", false, 3600));
        settle();
        assertTrue(performed.contains(new SessionEffect.TakeOver<>("c2")), "[MQTT-3.1.4-3] " + performed);
        return performed.stream().filter(SessionEffect.Attach.class::isInstance).map(e -> (SessionEffect.Attach<String>) e)
                .findFirst().orElseThrow();
    }

    @Test
    void aLiveSessionPassingThroughAShardOfItsNodeLeavesForAnotherNodePortable() {
        mesh(0, 0, 1);
        client = clientHomedOn(1);  // shard 1 orders the claims: c3's relinquishes c2's before the session reaches it
        sessionOn(0);
        crossed.clear();
        var attach = raceFor(1, 2);
        assertEquals("c3", attach.connection());
        var handovers = crossed.stream().filter(SessionTransfer.Handover.class::isInstance).map(SessionTransfer.Handover.class::cast).toList();
        assertEquals(2, handovers.size(), "shard 0 to 1, then shard 1 to 2: " + handovers);
        assertInstanceOf(PortableSession.class, handovers.get(1).session().orElseThrow(), "exported by shard 1");
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(0).store()), "node 0 keeps nothing of it");
        assertEquals(PortableSessionTest.expectedDeliveries(), SessionDeliveries.of(attach.session(), nanos.get()));
    }

    @Test
    void aPortableSessionPassingThroughAShardOfTheNodeItCameToGoesOnAsItIs() {
        mesh(1, 1, 0);
        client = clientHomedOn(0);
        sessionOn(2);
        crossed.clear();
        var attach = raceFor(0, 1);
        assertEquals("c3", attach.connection());
        var handovers = crossed.stream().filter(SessionTransfer.Handover.class::isInstance).map(SessionTransfer.Handover.class::cast).toList();
        assertEquals(2, handovers.size(), "shard 2 to 0, then shard 0 to 1: " + handovers);
        assertEquals(handovers.get(0).session(), handovers.get(1).session(), "the same portable form, imported by shard 1 alone");
        assertEquals(0, PortableSessionTest.entriesOf(nodes.get(2).store()), "node 0 keeps nothing of it");
        assertEquals(PortableSessionTest.expectedDeliveries(), SessionDeliveries.of(attach.session(), nanos.get()));
    }
}
