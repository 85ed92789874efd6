package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Back-pressure towards publishers: readers paused and peers' acknowledgements postponed until relief. */
class PublisherThrottleTest {
    private final PublisherThrottle<String, String> throttle = new PublisherThrottle<>();

    @Test
    void withNothingCongestedEveryoneReadsAndEveryBatchIsAcknowledged() {
        assertTrue(throttle.mayRead("r1", false));
        assertTrue(throttle.acknowledgeNow(1));
    }

    @Test
    void anOverloadedMeshPausesReadersUntilItDrainsBelowItsLowWaterMark() {
        assertFalse(throttle.mayRead("r1", true));
        assertFalse(throttle.mayRead("r2", true));
        assertTrue(throttle.acknowledgeNow(1), "the mesh's own overload does not hold peers' credits");
        assertEquals(List.of(), throttle.meshRelieved(false), "still above the low-water mark");
        assertEquals(List.of("r1", "r2"), throttle.meshRelieved(true));
        assertEquals(List.of(), throttle.meshRelieved(true), "each reader resumed once");
    }

    @Test
    void aCongestedSubscriberPausesReadersAndPostponesPeerAcknowledgements() {  // slow-subscriber-policy = throttle
        throttle.congested("slow");
        assertFalse(throttle.mayRead("r1", false));
        assertFalse(throttle.acknowledgeNow(2));
        assertFalse(throttle.acknowledgeNow(3));
        var relief = throttle.relieved("slow", true);
        assertEquals(List.of(2, 3), relief.acks());
        assertEquals(List.of("r1"), relief.readers());
    }

    @Test
    void reliefComesOnlyWhenTheLastCongestedSubscriberIsRelieved() {
        throttle.congested("a");
        throttle.congested("b");
        throttle.mayRead("r1", false);
        throttle.acknowledgeNow(1);
        var first = throttle.relieved("a", true);
        assertTrue(first.acks().isEmpty() && first.readers().isEmpty(), "b still congested");
        var last = throttle.relieved("b", true);
        assertEquals(List.of(1), last.acks());
        assertEquals(List.of("r1"), last.readers());
    }

    @Test
    void readersStayPausedWhileTheMeshIsStillOverloadedAfterACongestionEnds() {
        throttle.congested("slow");
        throttle.mayRead("r1", false);
        throttle.acknowledgeNow(1);
        var relief = throttle.relieved("slow", false);
        assertEquals(List.of(1), relief.acks(), "peers' credits go back at once");
        assertEquals(List.of(), relief.readers(), "but the mesh is above its low-water mark");
        assertEquals(List.of("r1"), throttle.meshRelieved(true));
    }

    @Test
    void relievingAConnectionThatWasNotCongestedChangesNothing() {
        throttle.congested("slow");
        throttle.acknowledgeNow(1);
        var relief = throttle.relieved("other", true);
        assertTrue(relief.acks().isEmpty());
        assertFalse(throttle.acknowledgeNow(2), "slow is still congested");
    }
}
