package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PublisherThrottleTest {
    private static final boolean OVERLOADED = true;
    private static final boolean CALM = false;
    private static final boolean BELOW_LOW_WATER = true;
    private static final boolean ABOVE_LOW_WATER = false;

    private final PublisherThrottle<String, String> throttle = new PublisherThrottle<>();

    @Test
    void withoutPressureReadersReadOnAndBatchesAreAcknowledged() {
        assertTrue(throttle.mayRead("r1", CALM));
        assertTrue(throttle.acknowledgeNow(1));
        assertEquals(List.of(), throttle.meshRelieved(BELOW_LOW_WATER), "nobody was paused");
    }

    @Test
    void anOverloadedMeshPausesReadersUntilItIsBelowLowWater() {
        assertFalse(throttle.mayRead("r1", OVERLOADED));
        assertFalse(throttle.mayRead("r2", OVERLOADED));
        assertTrue(throttle.acknowledgeNow(1), "the mesh alone never postpones acknowledgements");
        assertEquals(List.of(), throttle.meshRelieved(ABOVE_LOW_WATER), "hysteresis: not yet");
        assertEquals(List.of("r1", "r2"), throttle.meshRelieved(BELOW_LOW_WATER));
        assertEquals(List.of(), throttle.meshRelieved(BELOW_LOW_WATER), "each reader resumes once");
    }

    @Test
    void aCongestedSubscriberPausesReadersAndPostponesAcknowledgements() {
        throttle.congested("slow");
        assertFalse(throttle.mayRead("r1", CALM));
        assertFalse(throttle.acknowledgeNow(1));
        assertFalse(throttle.acknowledgeNow(2));
        assertEquals(List.of(), throttle.meshRelieved(BELOW_LOW_WATER), "the subscriber is still congested");
        var relief = throttle.relieved("slow", BELOW_LOW_WATER);
        assertEquals(List.of(1, 2), relief.acks());
        assertEquals(List.of("r1"), relief.readers());
    }

    @Test
    void reliefComesOnlyWhenTheLastCongestedSubscriberDrains() {
        throttle.congested("a");
        throttle.congested("b");
        throttle.acknowledgeNow(1);
        throttle.mayRead("r1", CALM);
        var early = throttle.relieved("a", BELOW_LOW_WATER);
        assertEquals(List.of(), early.acks());
        assertEquals(List.of(), early.readers());
        assertFalse(throttle.acknowledgeNow(2), "b is still congested");
        var relief = throttle.relieved("b", BELOW_LOW_WATER);
        assertEquals(List.of(1, 2), relief.acks());
        assertEquals(List.of("r1"), relief.readers());
        assertTrue(throttle.acknowledgeNow(3));
        assertTrue(throttle.mayRead("r2", CALM));
    }

    @Test
    void reliefWithTheMeshStillHighReleasesAcknowledgementsButNotReaders() {
        throttle.congested("slow");
        throttle.acknowledgeNow(1);
        throttle.mayRead("r1", OVERLOADED);
        var relief = throttle.relieved("slow", ABOVE_LOW_WATER);
        assertEquals(List.of(1), relief.acks());
        assertEquals(List.of(), relief.readers());
        assertEquals(List.of("r1"), throttle.meshRelieved(BELOW_LOW_WATER));
    }

    @Test
    void relievingASubscriberThatWasNotCongestedLetsNothingGo() {
        throttle.congested("slow");
        throttle.acknowledgeNow(1);
        throttle.mayRead("r1", CALM);
        var relief = throttle.relieved("unknown", BELOW_LOW_WATER);
        assertEquals(List.of(), relief.acks());
        assertEquals(List.of(), relief.readers());
        assertFalse(throttle.mayRead("r2", CALM), "still congested");
    }

    @Test
    void aSubscriberCongestedTwiceIsRelievedOnce() {
        throttle.congested("slow");
        throttle.congested("slow");
        throttle.acknowledgeNow(1);
        assertEquals(List.of(1), throttle.relieved("slow", BELOW_LOW_WATER).acks());
        assertTrue(throttle.acknowledgeNow(2));
    }

    @Test
    void postponedAcknowledgementsAreReleasedOnce() {
        throttle.congested("slow");
        throttle.acknowledgeNow(1);
        throttle.relieved("slow", BELOW_LOW_WATER);
        throttle.congested("slow");
        throttle.acknowledgeNow(2);
        assertEquals(List.of(2), throttle.relieved("slow", BELOW_LOW_WATER).acks(), "1 was acknowledged already");
    }
}
