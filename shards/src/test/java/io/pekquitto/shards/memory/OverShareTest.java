package io.pekquitto.shards.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The grace a client over its fair share has, on a clock the test moves. */
class OverShareTest {
    private static final long SECOND = 1_000_000_000L;
    private final MemoryBudget budget = new MemoryBudget(1_000, 0);
    private final OverShare overShare = new OverShare(Duration.ofSeconds(10));

    /** Two clients hold 950 bytes, past the high-water mark (900); the fair share is 333 (1,000 among them and one more). */
    private void pastHighWater() {
        budget.held(0, 750);
        budget.held(0, 200);
    }

    @Test
    void aClientOverItsFairShareIsDisconnectedOnceTheGraceIsOver() {
        pastHighWater();
        assertFalse(overShare.isOverTooLong(budget, 750, 0));
        assertFalse(overShare.isOverTooLong(budget, 750, 10 * SECOND - 1));
        assertEquals(10 * SECOND - 1, overShare.overFor(10 * SECOND - 1));
        assertTrue(overShare.isOverTooLong(budget, 750, 10 * SECOND));
    }

    @Test
    void aClientWithinItsFairShareIsNever() {
        pastHighWater();
        assertFalse(overShare.isOverTooLong(budget, 200, 0));
        assertFalse(overShare.isOverTooLong(budget, 200, 60 * SECOND));
        assertEquals(0, overShare.overFor(60 * SECOND));
    }

    @Test
    void noClientIsWhileTheShardIsUnderItsHighWaterMark() {
        budget.held(0, 800);  // one client, over any fair share but the budget is not in danger
        assertFalse(overShare.isOverTooLong(budget, 800, 0));
        assertFalse(overShare.isOverTooLong(budget, 800, 60 * SECOND));
    }

    @Test
    void droppingBackUnderStartsTheGraceAgain() {
        pastHighWater();
        overShare.isOverTooLong(budget, 750, 0);
        assertFalse(overShare.isOverTooLong(budget, 300, 8 * SECOND), "under its fair share for a moment");
        assertFalse(overShare.isOverTooLong(budget, 750, 9 * SECOND));
        assertFalse(overShare.isOverTooLong(budget, 750, 18 * SECOND));
        assertTrue(overShare.isOverTooLong(budget, 750, 19 * SECOND));
    }

    @Test
    void theShardMovingAroundItsHighWaterMarkDoesNotStartTheGraceAgain() {
        pastHighWater();
        overShare.isOverTooLong(budget, 750, 0);
        budget.held(200, 100);  // 850 of 1,000: under the high-water mark, above the low-water mark (750)
        assertFalse(overShare.isOverTooLong(budget, 750, 5 * SECOND));
        assertTrue(overShare.isOverTooLong(budget, 750, 10 * SECOND), "over since 0");
    }

    @Test
    void theShardGoingBackUnderItsLowWaterMarkStartsTheGraceAgain() {
        pastHighWater();
        overShare.isOverTooLong(budget, 750, 0);
        budget.held(200, 0);  // the other client let go: 750 of 1,000, not above three quarters
        assertFalse(overShare.isOverTooLong(budget, 750, 8 * SECOND));
        budget.held(0, 200);
        assertFalse(overShare.isOverTooLong(budget, 750, 9 * SECOND));
        assertTrue(overShare.isOverTooLong(budget, 750, 19 * SECOND));
    }

    @Test
    void theGraceStartsOnlyOnceTheShardIsFull() {
        budget.held(0, 800);
        budget.held(0, 50);  // 850: above the low-water mark, not past the high-water mark
        assertFalse(overShare.isOverTooLong(budget, 800, 0));
        assertFalse(overShare.isOverTooLong(budget, 800, 60 * SECOND));
    }

    @Test
    void aShardThatTurnsClientsAwayIsFullUnderItsHighWaterMarkToo() {
        budget.held(0, 880);  // one client holds 880 of 1,000: others take up to 900 at once, then only within their fair share
        assertFalse(budget.mayTake(880, 50), "the client holding most is turned away");
        assertTrue(budget.turnedAway() > 0);
        assertFalse(overShare.isOverTooLong(budget, 880, 0), "over since now");
        assertFalse(overShare.isOverTooLong(budget, 880, 9 * SECOND), "above three quarters: still over");
        assertTrue(overShare.isOverTooLong(budget, 880, 10 * SECOND));
    }
}
