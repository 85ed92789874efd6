package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class BarriersTest {
    private final Barriers barriers = new Barriers();

    @Test
    void theContinuationComesWithTheLastAcknowledgement() {
        Runnable then = () -> { };
        long token = barriers.open(List.of(1, 2, 3), then);
        assertNull(barriers.acknowledged(token, 2));
        assertNull(barriers.acknowledged(token, 1));
        assertSame(then, barriers.acknowledged(token, 3));
    }

    @Test
    void aPeerCountsOnce() {
        Runnable then = () -> { };
        long token = barriers.open(List.of(1, 2), then);
        assertNull(barriers.acknowledged(token, 1));
        assertNull(barriers.acknowledged(token, 1), "a repeated SyncAck of one peer is not another's");
        assertSame(then, barriers.acknowledged(token, 2));
    }

    @Test
    void theContinuationIsReturnedOnlyOnce() {
        Runnable then = () -> { };
        long token = barriers.open(List.of(1), then);
        assertSame(then, barriers.acknowledged(token, 1));
        assertNull(barriers.acknowledged(token, 1), "a late or repeated SyncAck runs nothing twice");
    }

    @Test
    void anUnknownTokenIsIgnored() {
        assertNull(barriers.acknowledged(42, 1));
    }

    @Test
    void barriersOpenAtOnceAreIndependent() {
        Runnable first = () -> { };
        Runnable second = () -> { };
        long a = barriers.open(List.of(1, 2), first);
        long b = barriers.open(List.of(1), second);
        assertNotEquals(a, b);
        assertSame(second, barriers.acknowledged(b, 1));
        assertNull(barriers.acknowledged(a, 1), "b's acknowledgement does not count for a");
        assertSame(first, barriers.acknowledged(a, 2));
    }

    @Test
    void aReleasedTokenIsNotReused() {
        long a = barriers.open(List.of(1), () -> { });
        barriers.acknowledged(a, 1);
        Runnable later = () -> { };
        long b = barriers.open(List.of(1, 2), later);
        assertNotEquals(a, b);
        assertNull(barriers.acknowledged(a, 1), "a stale SyncAck for a must not count for b");
        assertNull(barriers.acknowledged(b, 1));
        assertSame(later, barriers.acknowledged(b, 2));
    }

    @Test
    void aPeerThatLeavesReleasesWhatWaitedForItAlone() {
        Runnable onlyTheGone = () -> { };
        Runnable alsoAnother = () -> { };
        long a = barriers.open(List.of(5), onlyTheGone);
        long b = barriers.open(List.of(5, 6), alsoAnother);
        assertEquals(List.of(onlyTheGone), barriers.peerGone(5));
        assertNull(barriers.acknowledged(a, 5), "released once");
        assertSame(alsoAnother, barriers.acknowledged(b, 6), "the peer left is no longer waited for");
        assertEquals(List.of(), barriers.peerGone(5));
    }
}
