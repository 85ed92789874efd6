package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

class DataPlaneTest {
    private static final IntPredicate NONE_HELD = destination -> false;
    private final DataPlane plane = new DataPlane(2);
    private final List<List<Forwarded>> sent = new ArrayList<>();

    private static Forwarded item(QoS qos) {
        return new Forwarded.Published("p", Message.received("t", Binary.EMPTY, qos, false, Properties.NONE, 0));
    }

    @Test
    void aHeldDestinationKeepsItsItemsUntilTheHoldEnds() {
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.flush(destination -> destination == 1, (destination, batch) -> sent.add(batch));
        assertEquals(List.of(), sent, "held: the session handed over is not written yet");
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(1, sent.size());
    }

    @Test
    void itemsWaitingTogetherGoAsOneBatch() {
        assertTrue(plane.add(1, item(QoS.AT_LEAST_ONCE)), "the first item asks for a flush");
        assertFalse(plane.add(1, item(QoS.AT_LEAST_ONCE)));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(1, sent.size());
        assertEquals(2, sent.get(0).size());
    }

    @Test
    void noMoreThanTheWindowOfBatchesIsUnacknowledged() {
        for (int i = 0; i < DataPlane.WINDOW + 2; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        }
        assertEquals(DataPlane.WINDOW, sent.size());
        plane.acknowledged(1);
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.WINDOW + 1, sent.size());
        assertEquals(2, sent.get(DataPlane.WINDOW).size(), "what waited meanwhile goes as one batch");
    }

    @Test
    void overloadDropsQos0ButNeverQos1AndPausesPublishers() {
        // Fill the window so nothing can leave, then go past the high-water mark.
        for (int i = 0; i < DataPlane.WINDOW; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        }
        for (int i = 0; i < DataPlane.HIGH_WATER; i++) plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertTrue(plane.isOverloaded());
        assertFalse(plane.add(1, item(QoS.AT_MOST_ONCE)));
        assertEquals(1, plane.droppedQos0());
        plane.add(1, item(QoS.AT_LEAST_ONCE));  // kept: QoS 1 is never dropped
        plane.acknowledged(1);
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.HIGH_WATER + 1, sent.get(sent.size() - 1).size());
        assertTrue(plane.isBelowLowWater());
    }

    private void fillWindow(int destination) {
        for (int i = 0; i < DataPlane.WINDOW; i++) {
            plane.add(destination, item(QoS.AT_LEAST_ONCE));
            plane.flush(NONE_HELD, (d, batch) -> sent.add(batch));
        }
    }

    @Test
    void aRestartedDestinationGetsItsCreditsBack() {
        fillWindow(1);
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.WINDOW, sent.size(), "no credit left");
        plane.reset(1);
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.WINDOW + 1, sent.size());
    }

    @Test
    void overloadNeverDropsQos2() {
        fillWindow(1);
        for (int i = 0; i < DataPlane.HIGH_WATER; i++) plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.add(1, item(QoS.EXACTLY_ONCE));
        assertEquals(0, plane.droppedQos0());
        plane.acknowledged(1);
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(QoS.EXACTLY_ONCE, Forwarded.messageOf(sent.get(sent.size() - 1).get(DataPlane.HIGH_WATER)).qos());
    }

    @Test
    void betweenTheMarksPublishersNeitherPauseNorResume() {  // hysteresis, so readers do not flap
        fillWindow(1);
        for (int i = 0; i < DataPlane.LOW_WATER; i++) plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertFalse(plane.isOverloaded());
        assertFalse(plane.isBelowLowWater());
    }

    @Test
    void oneOverloadedDestinationDoesNotHoldBackAnother() {
        fillWindow(1);
        for (int i = 0; i < DataPlane.HIGH_WATER; i++) plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertTrue(plane.add(0, item(QoS.AT_MOST_ONCE)), "QoS 0 to a calm destination is kept");
        var toZero = new ArrayList<List<Forwarded>>();
        plane.flush(NONE_HELD, (destination, batch) -> {
            if (destination == 0) toZero.add(batch);
        });
        assertEquals(1, toZero.size());
        assertEquals(0, plane.droppedQos0());
    }

    @Test
    void theBatchThatWillHoldAnItemIsCountedBeforeItIsSent() {
        assertEquals(List.of(0L, 0L), List.of(plane.batchesHoldingQueued()[0], plane.batchesHoldingQueued()[1]));
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertEquals(1, plane.batchesHoldingQueued()[1], "waiting: the next batch will hold it");
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(1, plane.batchesHoldingQueued()[1], "sent as batch 1");
        for (int i = 0; i < DataPlane.WINDOW; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        }
        assertEquals(DataPlane.WINDOW + 1, plane.batchesHoldingQueued()[1], "out of credit: still the next batch");
        assertEquals(0, plane.acknowledgedBatches()[1]);
        plane.acknowledged(1);
        assertEquals(1, plane.acknowledgedBatches()[1]);
    }

    @Test
    void aRestartedPeerOwesNoAcknowledgement() {
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        plane.reset(1);
        assertEquals(1, plane.acknowledgedBatches()[1], "what it held is gone with its state: nothing waits for it");
    }

    private static Forwarded sized(int bytes) {
        return new Forwarded.Published("p", Message.received("t", Binary.of(new byte[bytes]), QoS.AT_LEAST_ONCE, false,
                Properties.NONE, 0));
    }

    @Test
    void aBoundedDestinationGetsBatchesOfAtMostItsBytesWhileItHasCredit() {
        plane.limitBatches(1, 3_000);
        for (int i = 0; i < 5; i++) plane.add(1, sized(1_000));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(List.of(2, 2, 1), sent.stream().map(List::size).toList(), "1,000 bytes and a margin each: two fit in 3,000");
        assertEquals(3, plane.batchesSent());
    }

    @Test
    void aMessageLargerThanTheBoundGoesAloneInItsBatch() {
        plane.limitBatches(1, 3_000);
        plane.add(1, sized(10_000));
        plane.add(1, sized(10));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        assertEquals(List.of(1, 1), sent.stream().map(List::size).toList());
    }

    @Test
    void growingKeepsWhatWaitsAndCountsAndTheNewDestinationsStartEmpty() {
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        plane.grow(4);
        assertEquals(4, plane.destinations());
        assertEquals(2, plane.batchesHoldingQueued()[1], "one sent, one waiting");
        assertEquals(0, plane.batchesHoldingQueued()[3]);
        plane.add(3, item(QoS.AT_LEAST_ONCE));
        var to = new ArrayList<Integer>();
        plane.flush(NONE_HELD, (destination, batch) -> to.add(destination));
        assertEquals(List.of(1, 3), to);
    }

    @Test
    void aDroppedDestinationLosesWhatWaitedAndOwesNothing() {
        for (int i = 0; i <= DataPlane.WINDOW; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush(NONE_HELD, (destination, batch) -> sent.add(batch));
        }
        plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertEquals(2, plane.drop(1), "the item over the window and the one after it");
        assertEquals(plane.batchesHoldingQueued()[1], plane.acknowledgedBatches()[1], "no acknowledgement waits for it");
    }

    @Test
    void aRetainedMessageCaughtUpIsNeverDroppedAsQos0Is() {
        for (int i = 0; i < DataPlane.HIGH_WATER; i++) plane.add(1, item(QoS.AT_MOST_ONCE));
        var retained = new Forwarded.Retained(Message.received("t", Binary.utf8("r"), QoS.AT_MOST_ONCE, true, Properties.NONE, 0));
        plane.add(1, retained);
        plane.add(1, item(QoS.AT_MOST_ONCE));
        assertEquals(1, plane.droppedQos0(), "the publish over the mark, not the retained message");
    }
}
