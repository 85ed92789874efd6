package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a releasing connection had in transit comes back in order, and nothing sent meanwhile is lost. */
class ReleaseDrainingTest {
    private final ReleaseDraining<String> draining = new ReleaseDraining<>();

    private static Message message(String payload) {
        return Message.received("t", Binary.utf8(payload), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0);
    }

    @Test
    void unsentThenBouncedThenHeldInThatOrder() {
        draining.started("c1", "client", List.of(message("unsent")));
        assertTrue(draining.hold("client", message("held")));
        draining.bounced("c1", message("bounced"));
        var drained = draining.finish("c1");
        assertEquals(List.of("unsent", "bounced", "held"),
                drained.messages().stream().map(m -> m.payload().asUtf8()).toList(),
                "what was sent before the release comes first; what arrived meanwhile after it");
        assertEquals(ReleaseDraining.NOT_MOVED, drained.movedTo());
    }

    @Test
    void aClientThatIsNotDrainingIsNotHeld() {
        assertFalse(draining.hold("client", message("x")));
        assertNull(draining.finish("c1"));
    }

    @Test
    void afterDrainingNewMessagesAreNoLongerHeld() {
        draining.started("c1", "client", List.of());
        draining.finish("c1");
        assertFalse(draining.hold("client", message("x")), "the session is delivered to directly again");
    }

    @Test
    void theDrainedMessagesFollowASessionThatMovedToAnotherShard() {
        draining.started("c1", "client", List.of());
        draining.movedTo("client", 3);
        assertEquals(3, draining.finish("c1").movedTo());
    }

    @Test
    void aBounceFromAConnectionThatIsNotDrainingIsIgnored() {
        draining.bounced("c9", message("x"));
        assertNull(draining.finish("c9"));
    }

    @Test
    void aNewConnectionDrainingTheSameClientDoesNotLoseTheOlderOnesMessages() {
        draining.started("c1", "client", List.of(message("first")));
        draining.started("c2", "client", List.of(message("second")));
        var first = draining.finish("c1");
        assertEquals(1, first.messages().size());
        assertTrue(draining.hold("client", message("held")), "c2 is still draining: its client's messages wait");
        assertEquals(2, draining.finish("c2").messages().size());
    }
}
