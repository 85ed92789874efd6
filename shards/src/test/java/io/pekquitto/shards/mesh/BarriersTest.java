package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class BarriersTest {
    private final Barriers barriers = new Barriers();

    @Test
    void theContinuationComesWithTheLastAcknowledgement() {
        Runnable then = () -> { };
        long token = barriers.open(3, then);
        assertNull(barriers.acknowledged(token));
        assertNull(barriers.acknowledged(token));
        assertSame(then, barriers.acknowledged(token));
    }

    @Test
    void theContinuationIsReturnedOnlyOnce() {
        Runnable then = () -> { };
        long token = barriers.open(1, then);
        assertSame(then, barriers.acknowledged(token));
        assertNull(barriers.acknowledged(token), "a late or repeated SyncAck runs nothing twice");
    }

    @Test
    void anUnknownTokenIsIgnored() {
        assertNull(barriers.acknowledged(42));
    }

    @Test
    void barriersOpenAtOnceAreIndependent() {
        Runnable first = () -> { };
        Runnable second = () -> { };
        long a = barriers.open(2, first);
        long b = barriers.open(1, second);
        assertNotEquals(a, b);
        assertSame(second, barriers.acknowledged(b));
        assertNull(barriers.acknowledged(a), "b's acknowledgement does not count for a");
        assertSame(first, barriers.acknowledged(a));
    }

    @Test
    void aReleasedTokenIsNotReused() {
        long a = barriers.open(1, () -> { });
        barriers.acknowledged(a);
        Runnable later = () -> { };
        long b = barriers.open(2, later);
        assertNotEquals(a, b);
        assertNull(barriers.acknowledged(a), "a stale SyncAck for a must not count for b");
        assertNull(barriers.acknowledged(b));
        assertSame(later, barriers.acknowledged(b));
    }
}
