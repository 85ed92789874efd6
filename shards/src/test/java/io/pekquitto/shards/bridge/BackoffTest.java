package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void growsBetweenTheBaseAndThreeTimesTheLastWaitAndNeverPastTheCap() {
        var random = new Random(7);
        var backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(30), random::nextDouble);
        long last = 5_000;
        for (int i = 0; i < 200; i++) {
            long wait = backoff.next().toMillis();
            assertTrue(wait >= 5_000 && wait <= Math.min(30_000, 3 * last), "wait " + wait + " after " + last);
            last = wait;
        }
    }

    @Test
    void theHighestDrawsReachTheCapAndAResetStartsAgainFromTheBase() {
        var backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), () -> 0.999_999);
        assertEquals(Duration.ofMillis(2_999), backoff.next());
        assertEquals(Duration.ofMillis(8_996), backoff.next());
        assertEquals(Duration.ofMillis(9_999), backoff.next());
        backoff.reset();
        assertEquals(Duration.ofMillis(2_999), backoff.next());
        var lowest = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), () -> 0.0);
        assertEquals(Duration.ofSeconds(1), lowest.next());
        assertEquals(Duration.ofSeconds(1), lowest.next());
    }

    @Test
    void aCapEqualToTheBaseWaitsTheBaseEveryTime() {
        var backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5), () -> 0.9);
        for (int i = 0; i < 5; i++) assertEquals(Duration.ofSeconds(5), backoff.next());
    }
}
