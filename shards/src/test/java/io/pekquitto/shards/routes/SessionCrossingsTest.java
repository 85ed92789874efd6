package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SessionTransfer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The rules of a session crossing from shard 0 (old) to shard 1 (new), with a third shard, 2, publishing: each peer's
 * messages routed before its cut are the old shard's to forward, those after it the new shard's to deliver, in order.
 */
class SessionCrossingsTest {
    private static final List<Integer> PEERS = List.of(0, 1, 2);

    /** What the rules made the shard do, as lines. */
    private final List<String> done = new ArrayList<>();
    private final SessionCrossings crossings = new SessionCrossings(new SessionCrossings.Actions() {
        @Override public void forward(int shard, String clientId, Message message) { done.add("forward " + message.topic() + " to " + shard); }

        @Override public void cutPassed(int shard, String clientId, int peer) { done.add("passed " + peer + " to " + shard); }

        @Override public void unsubscribe(String clientId, String filter) { done.add("unsubscribe " + filter); }

        @Override public void deliver(String clientId, Message message) { done.add("deliver " + message.topic()); }

        @Override public void transfer(SessionTransfer transfer) { done.add("transfer " + transfer.getClass().getSimpleName()); }
    });

    private static Message message(String topic) {
        return Message.received(topic, Binary.utf8("x"), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0);
    }

    @Test
    void theOldShardForwardsWhatAPeerSentBeforeItsCutAndWithdrawsOnceAllCut() {  // as shard 0
        crossings.left("c", 1, PEERS);
        assertTrue(crossings.keepUntilCut("c", "a/#"), "its filter stays in the index until every peer cut");
        assertFalse(crossings.keepUntilCut("c", "$share/g/a/#"), "a shared member leaves at once: members go by client id");
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 2, message("a/1")));
        crossings.cut("c", 2);
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 2, message("a/2")));  // the new shard's now
        crossings.cut("c", 0);
        assertFalse(crossings.isEmpty());
        crossings.cut("c", 1);
        assertEquals(List.of("forward a/1 to 1", "passed 2 to 1", "passed 0 to 1", "passed 1 to 1", "unsubscribe a/#"), done);
        assertTrue(crossings.isEmpty());
        assertEquals(SessionCrossings.Decision.DELIVER, crossings.route("c", 2, message("a/3")), "crossed: as any client");
    }

    @Test
    void theNewShardDeliversAPeersMessagesAfterItsCutOnceTheOldShardPassedIt() {  // as shard 1
        crossings.arrived("c", 0, false, PEERS);
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 2, message("before")), "the old shard forwards it");
        assertEquals(SessionCrossings.Decision.DELIVER, crossings.route("c", SessionCrossings.NO_PEER, message("forwarded")));
        crossings.cut("c", 2);
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 2, message("after")), "held");
        assertEquals(List.of(), done);
        crossings.passed("c", 2);
        assertEquals(List.of("deliver after"), done);
        assertEquals(SessionCrossings.Decision.DELIVER, crossings.route("c", 2, message("later")));
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 0, message("of the old one")), "shard 0 not cut yet");
    }

    @Test
    void aPassThatComesBeforeThePeersCutStillWaitsForTheCut() {  // two paths: old shard to new, peer to new
        crossings.arrived("c", 0, false, PEERS);
        crossings.passed("c", 2);
        assertEquals(SessionCrossings.Decision.DONE, crossings.route("c", 2, message("before its cut")), "forwarded: not twice");
        crossings.cut("c", 2);
        assertEquals(SessionCrossings.Decision.DELIVER, crossings.route("c", 2, message("after")));
    }

    @Test
    void theSessionIsHandedOnOnlyOnceItCrossed() {
        crossings.arrived("c", 0, false, PEERS);
        assertTrue(crossings.deferUntilCrossed(new SessionTransfer.Relinquish("c", 7, new SessionTransfer.Successor(2, 9))));
        for (int peer : PEERS) {
            crossings.cut("c", peer);
            crossings.passed("c", peer);
        }
        assertEquals(List.of("transfer Relinquish"), done);
        assertFalse(crossings.deferUntilCrossed(new SessionTransfer.Handover("c", 9, Optional.empty())));
    }

    @Test
    void aGonePeerCutsNoMoreAndAGoneOldShardForwardsNoMore() {
        crossings.left("d", 1, PEERS);
        crossings.keepUntilCut("d", "d/#");
        crossings.arrived("c", 2, false, PEERS);
        crossings.cut("c", 0);
        crossings.route("c", 0, message("held"));
        crossings.peerGone(2);  // the old shard of c, and a peer of d
        assertEquals(List.of("passed 2 to 1", "deliver held"), done);
        crossings.peerGone(1);  // d's new shard
        assertEquals("unsubscribe d/#", done.get(done.size() - 1));
        assertTrue(crossings.isEmpty());
    }

    @Test
    void whatTheOldShardForwardsOfASessionThatCleanStartEndedIsForNoOne() {
        crossings.arrived("c", 0, true, PEERS);
        assertFalse(crossings.takesForwarded("c", 0));
        assertTrue(crossings.takesForwarded("c", 2), "a bounce from elsewhere");
        assertTrue(crossings.takesForwarded("other", 0));
    }
}
