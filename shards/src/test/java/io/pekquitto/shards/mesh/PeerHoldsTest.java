package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A peer handed a session hears nothing more until the shard's writes of it are written; the others are not concerned. */
class PeerHoldsTest {
    private final PeerHolds holds = new PeerHolds(3);
    private final List<Map.Entry<Integer, ControlMessage>> sent = new ArrayList<>();

    @Test
    void heldMessagesGoInOrderOnceTheBatchIsWritten() {
        holds.holdUntil(1, 5);
        assertTrue(holds.isHeld(1));
        assertFalse(holds.isHeld(2), "another peer is not concerned");
        holds.keep(1, new ControlMessage.Sync(1));
        holds.keep(1, new ControlMessage.Sync(2));

        assertFalse(holds.written(4, (peer, message) -> sent.add(Map.entry(peer, message))), "batch 5 is not written yet");
        assertEquals(List.of(), sent);
        assertTrue(holds.written(5, (peer, message) -> sent.add(Map.entry(peer, message))));
        assertEquals(List.of(Map.entry(1, new ControlMessage.Sync(1)), Map.entry(1, new ControlMessage.Sync(2))), sent);
        assertFalse(holds.isHeld(1));
    }

    @Test
    void aSecondHandoverExtendsTheHold() {
        holds.holdUntil(1, 5);
        holds.holdUntil(1, 7);
        holds.holdUntil(1, 6);
        assertFalse(holds.written(6, (peer, message) -> sent.add(Map.entry(peer, message))));
        assertTrue(holds.isHeld(1));
        assertTrue(holds.written(7, (peer, message) -> sent.add(Map.entry(peer, message))));
    }

    @Test
    void aFailedWriteLiftsEveryHold() {
        holds.holdUntil(0, 5);
        holds.holdUntil(2, 9);
        holds.keep(2, new ControlMessage.Hello());
        assertTrue(holds.liftAll((peer, message) -> sent.add(Map.entry(peer, message))));
        assertEquals(List.of(Map.entry(2, new ControlMessage.Hello())), sent);
        assertFalse(holds.isHeld(0));
        assertFalse(holds.isHeld(2));
    }

    @Test
    void aPeerOfANodeThatJoinedCanBeHeldAndOneThatLeftDropsWhatItHeld() {
        holds.grow(6);
        holds.holdUntil(5, 3);
        holds.keep(5, new ControlMessage.Sync(1));
        assertTrue(holds.isHeld(5));
        holds.drop(5);
        assertFalse(holds.isHeld(5));
        assertFalse(holds.written(3, (peer, message) -> sent.add(Map.entry(peer, message))), "nothing left to lift");
        assertEquals(List.of(), sent, "what was held for a gone peer is not sent");
    }
}
