package io.pekquitto.shards.session;

import static io.pekquitto.shards.session.SessionsOfNodes.NO_WILL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.session.SessionsOfNodes.State;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node that leaves its cluster hands its sessions on (docs/cluster.md, A node leaving), driven through the session
 * rules of every shard of two or three nodes of two shards each ({@link SessionsOfNodes}): the ring of homes has none of
 * the leaving node's shards, and each session held there that outlives its connection goes to its home on another
 * node, where its client resumes it (session present) whichever node it reconnects to.
 */
class LeavingNodeTest {

    @Test
    void anOfflineSessionGoesToItsHomeOnAnotherNodeAndIsResumedThere() {
        var nodes = new SessionsOfNodes(2, 2);
        nodes.disconnect(attachedOn(nodes, "offline", 0));
        assertEquals(0, nodes.holderOf("offline"));
        nodes.startLeaving(0);
        nodes.settle();
        assertFalse(nodes.evacuated(0), "the ring changed; nothing moved yet");
        nodes.evacuate(0);
        nodes.settle();
        assertTrue(nodes.evacuated(0));
        int holder = nodes.holderOf("offline");
        assertEquals(1, nodes.nodeOf(holder), "held by its home on node 1 now");
        assertEquals(holder, nodes.ring().homeOf("offline"));
        var back = nodes.connect("offline", 2, false, NO_WILL);
        nodes.settle();
        assertEquals(State.ATTACHED, nodes.states.get(back));
        assertTrue(nodes.sessionPresent.get(back), "session present 1");
    }

    @Test
    void aConnectedClientIsDisconnectedAsItsSessionGoesWithoutItsWill() {
        var nodes = new SessionsOfNodes(2, 2);
        var connection = nodes.connect("connected", 1, false, 0);  // a will of no delay
        nodes.settle();
        nodes.startLeaving(0);
        nodes.evacuate(0);
        nodes.settle();
        assertEquals(State.CLOSED, nodes.states.get(connection), "DISCONNECT 0x8B");
        assertTrue(nodes.evacuated(0));
        assertEquals(1, nodes.nodeOf(nodes.holderOf("connected")));
        assertEquals(List.of(), nodes.published, "the server shut down; the session goes on: no will");
        var back = nodes.connect("connected", 3, false, NO_WILL);
        nodes.settle();
        assertTrue(nodes.sessionPresent.get(back));
    }

    @Test
    void aSessionOfExpiryZeroIsNotHandedOn() {  // it ends with its connection [MQTT-3.1.2-... 3.1.2.11.2]
        var nodes = new SessionsOfNodes(2, 2);
        var clean = nodes.connect("clean", 0, true, NO_WILL);
        nodes.settle();
        nodes.startLeaving(0);
        nodes.settle();
        assertTrue(nodes.evacuated(0) || nodes.holderOf("clean") == 0);
        assertEquals(State.ATTACHED, nodes.states.get(clean), "the broker's own shutdown disconnects it later");
    }

    @Test
    void aClientThatReconnectsToAnotherNodeWhileItsSessionIsHandedOnGetsItOnce() {
        for (int node = 1; node <= 2; node++) {
            var nodes = new SessionsOfNodes(3, 2);
            var first = attachedOn(nodes, "racing", 0);
            nodes.startLeaving(0);
            nodes.evacuate(0);
            var second = nodes.connect("racing", 2 * node, false, NO_WILL);  // before the hand-over is done
            nodes.settle();
            assertEquals(State.CLOSED, nodes.states.get(first));
            assertEquals(State.ATTACHED, nodes.states.get(second));
            assertTrue(nodes.sessionPresent.get(second));
            assertTrue(nodes.evacuated(0));
            assertEquals(nodes.shardOf.get(second), nodes.holderOf("racing"));
        }
    }

    @Test
    void theOthersForgetTheNodeOnceItLeftAndNoWillIsPublished() {
        var nodes = new SessionsOfNodes(3, 2);
        attachedOn(nodes, "a", 0);
        nodes.disconnect(attachedOn(nodes, "b", 1));
        nodes.startLeaving(0);
        nodes.evacuate(0);
        nodes.settle();
        assertEquals(List.of(), nodes.leave(0));
        nodes.settle();
        for (var clientId : List.of("a", "b")) {
            var back = nodes.connect(clientId, 4, false, NO_WILL);
            nodes.settle();
            assertTrue(nodes.sessionPresent.get(back), clientId);
        }
        assertEquals(List.of(), nodes.published);
    }

    @Test
    void aShardThatIsStillAHomeHasNowhereToHandItsSessionsTo() {  // every node of the cluster leaves at once
        var nodes = new SessionsOfNodes(2, 2);
        attachedOn(nodes, "stays", 0);
        nodes.evacuate(0);
        nodes.settle();
        assertTrue(nodes.evacuated(0), "nothing to wait for");
        assertEquals(0, nodes.holderOf("stays"), "and nothing handed on");
    }

    private static String attachedOn(SessionsOfNodes nodes, String clientId, int shard) {
        var connection = nodes.connect(clientId, shard, false, NO_WILL);
        nodes.settle();
        assertEquals(State.ATTACHED, nodes.states.get(connection));
        return connection;
    }
}
