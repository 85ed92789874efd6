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
import org.junit.jupiter.api.Test;

class DataPlaneTest {
    private final DataPlane plane = new DataPlane(2);
    private final List<List<Forwarded>> sent = new ArrayList<>();

    private static Forwarded item(QoS qos) {
        return new Forwarded.Published("p", Message.received("t", Binary.EMPTY, qos, false, Properties.NONE, 0));
    }

    @Test
    void itemsWaitingTogetherGoAsOneBatch() {
        assertTrue(plane.add(1, item(QoS.AT_LEAST_ONCE)), "the first item asks for a flush");
        assertFalse(plane.add(1, item(QoS.AT_LEAST_ONCE)));
        plane.flush((destination, batch) -> sent.add(batch));
        assertEquals(1, sent.size());
        assertEquals(2, sent.get(0).size());
    }

    @Test
    void noMoreThanTheWindowOfBatchesIsUnacknowledged() {
        for (int i = 0; i < DataPlane.WINDOW + 2; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush((destination, batch) -> sent.add(batch));
        }
        assertEquals(DataPlane.WINDOW, sent.size());
        plane.acknowledged(1);
        plane.flush((destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.WINDOW + 1, sent.size());
        assertEquals(2, sent.get(DataPlane.WINDOW).size(), "what waited meanwhile goes as one batch");
    }

    @Test
    void overloadDropsQos0ButNeverQos1AndPausesPublishers() {
        // Fill the window so nothing can leave, then go past the high-water mark.
        for (int i = 0; i < DataPlane.WINDOW; i++) {
            plane.add(1, item(QoS.AT_LEAST_ONCE));
            plane.flush((destination, batch) -> sent.add(batch));
        }
        for (int i = 0; i < DataPlane.HIGH_WATER; i++) plane.add(1, item(QoS.AT_LEAST_ONCE));
        assertTrue(plane.isOverloaded());
        assertFalse(plane.add(1, item(QoS.AT_MOST_ONCE)));
        assertEquals(1, plane.droppedQos0());
        plane.add(1, item(QoS.AT_LEAST_ONCE));  // kept: QoS 1 is never dropped
        plane.acknowledged(1);
        plane.flush((destination, batch) -> sent.add(batch));
        assertEquals(DataPlane.HIGH_WATER + 1, sent.get(sent.size() - 1).size());
        assertTrue(plane.isBelowLowWater());
    }
}
