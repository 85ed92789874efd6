package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** A continuation waits for every peer's acknowledgement, and runs once. */
class BarriersTest {
    private final Barriers barriers = new Barriers();

    @Test
    void theContinuationIsReleasedByTheLastPeersAcknowledgement() {
        Runnable then = () -> {};
        long token = barriers.open(3, then);
        assertNull(barriers.acknowledged(token));
        assertNull(barriers.acknowledged(token));
        assertSame(then, barriers.acknowledged(token));
        assertNull(barriers.acknowledged(token), "released once");
    }

    @Test
    void barriersAreIndependent() {
        Runnable first = () -> {};
        Runnable second = () -> {};
        long a = barriers.open(2, first);
        long b = barriers.open(1, second);
        assertNotEquals(a, b);
        assertSame(second, barriers.acknowledged(b));
        assertNull(barriers.acknowledged(a));
        assertSame(first, barriers.acknowledged(a));
    }

    @Test
    void anUnknownTokenReleasesNothing() {
        assertNull(barriers.acknowledged(42));
    }
}
