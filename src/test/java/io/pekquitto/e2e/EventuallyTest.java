package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The end-to-end tests' waits: {@link Eventually} for a condition to come true, {@link Never} for one that must not. */
class EventuallyTest {

    @Test
    void awaitReturnsOnceTheConditionHolds() {
        var polls = new AtomicInteger();
        Eventually.await(Duration.ofSeconds(5), "the third poll", () -> polls.incrementAndGet() == 3);
        assertEquals(3, polls.get());
    }

    @Test
    void awaitFailsAfterTheTimeoutNamingWhatItWaitedFor() {
        long start = System.nanoTime();
        var failure = assertThrows(AssertionError.class,
                () -> Eventually.await(Duration.ofMillis(200), "the moon", () -> false));
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos(), "gave up before the timeout");
        assertEquals("waited PT0.2S for the moon", failure.getMessage());
    }

    @Test
    void awaitOfAValueReturnsItAndNamesTheLastOneSeen() {
        var counter = new AtomicInteger();
        assertEquals(4, Eventually.await(Duration.ofSeconds(5), "four", counter::incrementAndGet, n -> n >= 4));
        var failure = assertThrows(AssertionError.class,
                () -> Eventually.await(Duration.ofMillis(50), "exactly 2 parked", () -> 1, n -> n == 2));
        assertEquals("waited PT0.05S for exactly 2 parked; last 1", failure.getMessage());
    }

    @Test
    void aReadingThatThrowsFailsTheWaitSayingWhatItWaitedFor() {
        var failure = assertThrows(AssertionError.class, () -> Eventually.await(Duration.ofSeconds(5), "a PUBACK",
                () -> { throw new java.io.IOException("connection reset"); }));
        assertEquals("java.io.IOException: connection reset while waiting for a PUBACK", failure.getMessage());
    }

    @Test
    void neverWatchesTheWholeWindowAndLooksMoreThanOnce() {
        var looks = new AtomicInteger();
        long start = System.nanoTime();
        Never.within(Duration.ofMillis(200), "a duplicate", () -> looks.incrementAndGet() < 0);
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(200).toNanos(), "stopped watching early");
        assertTrue(looks.get() > 2, "looked " + looks.get() + " times");
    }

    @Test
    void neverFailsAsSoonAsTheConditionComesTrue() {
        var looks = new AtomicInteger();
        long start = System.nanoTime();
        var failure = assertThrows(AssertionError.class,
                () -> Never.within(Duration.ofSeconds(10), "a duplicate", () -> looks.incrementAndGet() == 3));
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "watched on after it happened");
        assertTrue(failure.getMessage().startsWith("a duplicate, after "), failure.getMessage());
    }

    @Test
    void neverLooksAgainAtTheEndOfTheWindow() {
        long end = System.nanoTime() + Duration.ofMillis(100).toNanos();
        assertThrows(AssertionError.class, () -> Never.within(Duration.ofMillis(100), "late", () -> System.nanoTime() >= end));
    }
}
