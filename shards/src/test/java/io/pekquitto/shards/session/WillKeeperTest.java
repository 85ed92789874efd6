package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The will keeper's rules (docs/cluster.md, Wills across nodes): what it keeps, forgets and publishes when a node is lost. */
class WillKeeperTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 7_000 * SECOND;

    private final WillKeeper keeper = new WillKeeper();

    private static Message will(String text) {
        return Message.received("will/" + text, Binary.utf8(text), QoS.AT_LEAST_ONCE, false, Properties.NONE, T0);
    }

    private static List<String> payloads(List<Map.Entry<String, Message>> published) {
        return published.stream().map(e -> e.getKey() + "=" + e.getValue().payload().asUtf8()).sorted().toList();
    }

    @Test
    void theWillsOfAGoneHoldersClientsArePublishedOnceAndForgotten() {
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.keep(new KeepWill("b", 5, 11, will("b"), 0));
        keeper.keep(new KeepWill("c", 6, 12, will("c"), 0));
        assertEquals(List.of("a=a", "b=b"), payloads(keeper.holdersGone(Set.of(4, 5), Set.of(), T0)));
        assertEquals(1, keeper.size(), "the live holder's will stays");
        assertTrue(keeper.holdersGone(Set.of(4, 5), Set.of(), T0).isEmpty(), "published once");
    }

    @Test
    void aForgottenWillIsNotPublished() {  // the client disconnected normally, or its will went from its own node
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.forget(new ForgetWill("a", 4, 10));
        assertEquals(0, keeper.size(), "it keeps no more than its holders hold");
        assertTrue(keeper.holdersGone(Set.of(4), Set.of(), T0).isEmpty());
    }

    @Test
    void aNewerClaimsWillWinsOverTheForgettingOfAnOlderOne() {
        keeper.keep(new KeepWill("a", 4, 10, will("old"), 0));
        keeper.keep(new KeepWill("a", 4, 20, will("new"), 0));  // the client came back on the same shard
        keeper.forget(new ForgetWill("a", 4, 10));
        assertEquals(List.of("a=new"), payloads(keeper.holdersGone(Set.of(4), Set.of(), T0)));
    }

    @Test
    void aForgetFromAnotherHolderLeavesTheWillOfThisOne() {
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.forget(new ForgetWill("a", 5, 10));
        assertEquals(1, keeper.size());
    }

    @Test
    void oneWillPerClientIdIsPublishedWhenTwoOfItsHoldersGoTogether() {
        // The session moved from shard 4 to shard 5 of the lost node; 4's forgetting was lost with it.
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.keep(new KeepWill("a", 5, 20, will("a"), 0));
        assertEquals(1, keeper.holdersGone(Set.of(4, 5), Set.of(), T0).size(), "a client id has one connection [MQTT-3.1.4-3]");
        assertEquals(0, keeper.size());
    }

    @Test
    void aDelayedWillIsPublishedAtOnceItsLifetimeFromThen() {  // the session is lost with its node (3.1.3.2.2, 3.1.3.2.4)
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        var will = Message.received("will/a", Binary.utf8("a"), QoS.AT_LEAST_ONCE, false, properties, T0);
        keeper.keep(new KeepWill("a", 4, 10, will, 3600));
        long lostAt = T0 + 60 * SECOND;  // connected a minute before its node was lost
        var published = keeper.holdersGone(Set.of(4), Set.of(), lostAt).get(0).getValue();
        assertFalse(published.isExpired(lostAt + 9 * SECOND), "alive for 10 s from its publication");
        assertTrue(published.isExpired(lostAt + 10 * SECOND));
        assertEquals(lostAt, published.receivedAt());
    }

    @Test
    void theWillsOfAHolderWhoseNodeLeftAreForgottenNotPublished() {  // the node published them as it closed their connections
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.keep(new KeepWill("b", 5, 11, will("b"), 0));
        assertEquals(List.of("b=b"), payloads(keeper.holdersGone(Set.of(4, 5), Set.of(4), T0)));
        assertEquals(0, keeper.size());
    }

    @Test
    void whatARestartedHolderToldIsVoid() {
        keeper.keep(new KeepWill("a", 4, 10, will("a"), 0));
        keeper.keep(new KeepWill("b", 5, 11, will("b"), 0));
        keeper.holderRestarted(4);
        assertEquals(List.of("b=b"), payloads(keeper.holdersGone(Set.of(4, 5), Set.of(), T0)));
    }
}
