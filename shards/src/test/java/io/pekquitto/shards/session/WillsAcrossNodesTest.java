package io.pekquitto.shards.session;

import static io.pekquitto.shards.session.SessionsOfNodes.NO_WILL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The wills of a lost node's clients (docs/cluster.md, Wills across nodes), driven through the session rules of every
 * shard of two or three nodes of two shards each ({@link SessionsOfNodes}), every message delivered in order: a will
 * is told to a keeper on another node while its client is connected, forgotten when it is published, cancelled or
 * moves on, and published once by the keeper when its holder's node is lost.
 */
class WillsAcrossNodesTest {
    private static final long SECOND = 1_000_000_000L;

    private List<String> willMessages(SessionsOfNodes nodes) {
        return nodes.sent.stream().filter(line -> line.contains("KeepWill") || line.contains("ForgetWill")).toList();
    }

    @Test
    void theWillOfAClientOfALostNodeIsPublishedOnceNeverTheWillOfOneThatDisconnected() {
        var nodes = new SessionsOfNodes(2, 2);
        var lost = nodes.connect("lost", 2, true, 0);
        var calm = nodes.connect("calm", 3, true, 0);
        var living = nodes.connect("living", 0, true, 0);
        nodes.settle();
        nodes.disconnect(calm);
        nodes.settle();
        assertEquals(2, nodes.keptWills(), "the keepers hold the wills of the connected clients");
        assertEquals(List.of("will/" + lost), nodes.lose(1), "published at once by its keeper, on node 0");
        nodes.settle();
        assertEquals(List.of("will/" + lost), nodes.published, "once; not the calm one's, nor the living one's");
        assertEquals(0, nodes.keptWills(), "node 0 alone keeps nothing");
        assertEquals(nodes.states.get(living), SessionsOfNodes.State.ATTACHED);
    }

    @Test
    void theWillsOfANodeThatLeftAreNotPublishedByTheOthers() {  // it stopped its broker, which published them itself
        var nodes = new SessionsOfNodes(2, 2);
        nodes.connect("leaving", 2, true, 0);
        nodes.settle();
        assertEquals(1, nodes.keptWills());
        assertEquals(List.of(), nodes.leave(1));
        assertEquals(0, nodes.keptWills(), "and forgotten");
    }

    @Test
    void aWillIsToldToItsKeeperWithItsClaimAndForgottenAtANormalDisconnect() {
        var nodes = new SessionsOfNodes(2, 2);
        var connection = nodes.connect("client", 2, true, 30);
        nodes.settle();
        int holder = nodes.holderOf("client");
        int keeper = HeldWills.keeperOf(nodes.ring(), "client", shard -> nodes.nodeOf(shard) != nodes.nodeOf(holder));
        assertTrue(nodes.nodeOf(keeper) != nodes.nodeOf(holder), "on another node");
        var told = willMessages(nodes);
        assertEquals(1, told.size(), () -> "one KeepWill: " + told);
        assertTrue(told.get(0).startsWith(holder + " -> " + keeper + ": KeepWill[clientId=client, shard=" + holder), told.get(0));
        assertTrue(told.get(0).contains("delaySeconds=30"), told.get(0));
        nodes.disconnect(connection);
        nodes.settle();
        var forgotten = willMessages(nodes);
        assertEquals(2, forgotten.size(), () -> "then one ForgetWill: " + forgotten);
        assertTrue(forgotten.get(1).startsWith(holder + " -> " + keeper + ": ForgetWill[clientId=client, shard=" + holder), forgotten.get(1));
        assertEquals(0, nodes.keptWills());
    }

    @Test
    void aConnectionWithoutAWillTellsNoKeeper() {
        var nodes = new SessionsOfNodes(2, 2);
        nodes.disconnect(settled(nodes, nodes.connect("client", 2, true, NO_WILL)));
        nodes.settle();
        assertEquals(List.of(), willMessages(nodes));
    }

    @Test
    void aNodeAloneTellsNoKeeperAndPublishesAsBefore() {
        var nodes = new SessionsOfNodes(1, 2);
        nodes.connect("a", 1, true, 0);
        nodes.drop(settled(nodes, nodes.connect("b", 0, true, 0)));
        nodes.settle();
        assertEquals(List.of(), willMessages(nodes), "nothing changes for a broker of one node");
        assertEquals(List.of("will/k2"), nodes.published);
    }

    @Test
    void aDelayedWillWaitingOnTheLostNodeIsPublishedAtOnce() {  // the session is lost with its node: 3.1.3.2.2
        var nodes = new SessionsOfNodes(2, 2);
        var connection = nodes.connect("client", 3, false, 3600);
        nodes.settle();
        nodes.drop(connection);  // its will waits out an hour in the offline session
        nodes.settle();
        assertEquals(List.of(), nodes.published);
        assertEquals(1, willMessages(nodes).size(), "the keeper was told once: the same will waits");
        assertEquals(List.of("will/" + connection), nodes.lose(1));
    }

    @Test
    void aSessionResumedBeforeTheWillDelayCancelsTheWillAtItsKeeper() {  // [MQTT-3.1.3-9]
        var nodes = new SessionsOfNodes(2, 2);
        nodes.drop(settled(nodes, nodes.connect("client", 2, false, 3600)));
        nodes.settle();
        nodes.connect("client", 3, false, NO_WILL);  // back on the same node, without a will
        nodes.settle();
        assertEquals(0, nodes.keptWills());
        assertEquals(List.of(), nodes.lose(1));
    }

    @Test
    void aSessionTakenOverOnAnotherNodeLeavesItsOldKeeper() {
        var nodes = new SessionsOfNodes(2, 2);
        var first = settled(nodes, nodes.connect("client", 2, false, 0));
        nodes.connect("client", 0, false, 0);  // taken over from node 0: the first connection's will goes
        nodes.settle();
        assertEquals(List.of("will/" + first), nodes.published);
        assertEquals(1, nodes.keptWills(), "the second connection's will, kept on node 1");
        assertEquals(List.of(), nodes.lose(1), "the lost node held no will");
        assertEquals(List.of("will/" + first), nodes.published);
    }

    @Test
    void aWillWhoseKeeperIsLostGoesToANewKeeperAndIsPublishedWhenItsOwnNodeGoes() {
        var nodes = new SessionsOfNodes(3, 2);
        // A client on node 0 whose keeper is on node 1.
        String clientId = null;
        for (int i = 0; clientId == null; i++) {
            var candidate = "client-" + i;
            if (nodes.nodeOf(HeldWills.keeperOf(nodes.ring(), candidate, shard -> nodes.nodeOf(shard) != 0)) == 1) clientId = candidate;
        }
        var connection = settled(nodes, nodes.connect(clientId, 0, true, 0));
        assertEquals(List.of(), nodes.lose(1));
        nodes.settle();
        assertEquals(1, nodes.keptWills(), "known on two nodes again: node 0 and node 2");
        assertEquals(List.of("will/" + connection), nodes.lose(0));
        nodes.settle();
        assertEquals(List.of("will/" + connection), nodes.published);
    }

    @Test
    void aWillPublishedAfterItsDelayIsForgottenByItsKeeper() {  // 3.1.3.2.2
        var nodes = new SessionsOfNodes(2, 2);
        var clientId = homedApartFrom(nodes, 2);
        var connection = settled(nodes, nodes.connect(clientId, 2, false, 30));
        nodes.drop(connection);
        nodes.settle();
        nodes.willDelayExpired(clientId, SessionsOfNodes.NOW + 30 * SECOND);
        nodes.settle();
        assertEquals(List.of("will/" + connection), nodes.published, "by its holder");
        assertEquals(0, nodes.keptWills());
        assertEquals(List.of(), nodes.lose(1), "not again");
    }

    @Test
    void aSessionThatExpiresWithItsWillWaitingPublishesItAndItsKeeperForgetsIt() {  // 3.1.3.2.2: whichever comes first
        var nodes = new SessionsOfNodes(2, 2);
        var clientId = homedApartFrom(nodes, 3);  // its end goes to another shard: the holder itself tells the keeper
        var connection = settled(nodes, nodes.connect(clientId, 3, false, 3600));
        nodes.drop(connection);
        nodes.settle();
        nodes.expiryCheck(clientId, SessionsOfNodes.NOW + 60 * SECOND);
        nodes.settle();
        assertEquals(List.of("will/" + connection), nodes.published);
        assertEquals(0, nodes.keptWills());
        assertEquals(List.of(), nodes.lose(1));
    }

    @Test
    void aRestartedKeeperHearsAgainOfTheWillsItKept() {
        var nodes = new SessionsOfNodes(2, 2);
        var connection = settled(nodes, nodes.connect("client", 0, true, 0));
        int keeper = HeldWills.keeperOf(nodes.ring(), "client", shard -> nodes.nodeOf(shard) != 0);
        nodes.restart(keeper);
        nodes.settle();
        assertEquals(1, nodes.keptWills(), "told again after its Hello");
        assertEquals(List.of("will/" + connection), nodes.lose(0));
    }

    @Test
    void whatARestartedHolderToldItsKeeperIsVoid() {  // its connections were lost with its state, as on a node alone
        var nodes = new SessionsOfNodes(2, 2);
        nodes.connect("client", 2, true, 0);
        nodes.settle();
        nodes.restart(2);
        nodes.settle();
        assertEquals(0, nodes.keptWills());
        assertEquals(List.of(), nodes.lose(1));
    }

    @Test
    void aSessionRecoveredWithAWillWaitingIsToldToAKeeperOnceTheRingHasAnotherNode() {
        var sessions = new Sessions<String>(id -> new Session(id, 100, false), SessionJournal.NONE, MemoryBudget.NONE,
                shard -> shard >= 2, Long.MAX_VALUE);
        sessions.joinMesh(0, HomeRing.local(2), true);  // a node of a cluster starts alone
        var will = SessionsOfNodes.will("k0", 30).message();
        var recovered = new RecoveredSession("client", new Session("client", 100, false), Map.of(), 60, SessionsOfNodes.NOW,
                Optional.of(PendingWill.delayed(will, 30, SessionsOfNodes.NOW)));
        assertTrue(sessions.recover(recovered).stream().noneMatch(SessionEffect.Transfer.class::isInstance), "no keeper yet");
        var ring = new HomeRing(2, new int[] {0, 1, 2, 3});
        var told = sessions.ringChanged(ring, Set.of(), SessionsOfNodes.NOW).stream()
                .filter(effect -> effect instanceof SessionEffect.Transfer<String> t && t.message() instanceof KeepWill).toList();
        int keeper = HeldWills.keeperOf(ring, "client", shard -> shard >= 2);
        assertEquals(List.of(new SessionEffect.Transfer<String>(keeper, new KeepWill("client", 0, tokenOf(told), will, 30))), told);
        // It expired while the broker was down: it ends when its timers start, its will published, its keeper told.
        var ended = sessions.startRecoveredTimers(List.of("client"), SessionsOfNodes.NOW + 61 * SECOND);
        assertTrue(ended.stream().anyMatch(SessionEffect.PublishWill.class::isInstance));
        assertTrue(ended.contains(new SessionEffect.Transfer<String>(keeper, new ForgetWill("client", 0, tokenOf(told)))), ended::toString);
    }

    private static long tokenOf(List<SessionEffect<String>> told) {
        return ((KeepWill) ((SessionEffect.Transfer<String>) told.get(0)).message()).token();
    }

    /** A client id whose home is not {@code shard}. */
    private static String homedApartFrom(SessionsOfNodes nodes, int shard) {
        for (int i = 0; ; i++) if (nodes.ring().homeOf("client-" + i) != shard) return "client-" + i;
    }

    private static String settled(SessionsOfNodes nodes, String connection) {
        nodes.settle();
        return connection;
    }
}
