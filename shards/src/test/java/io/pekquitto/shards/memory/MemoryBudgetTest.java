package io.pekquitto.shards.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MemoryBudgetTest {
    private final MemoryBudget budget = new MemoryBudget(1_000_000, 100_000);

    @Test
    void whatClientsHoldCountsAgainstTheBudget() {
        budget.held(0, 300_000);
        budget.held(0, 600_000);
        assertEquals(900_000, budget.used());
        assertTrue(budget.hasRoomFor(100_000));
        assertFalse(budget.hasRoomFor(100_001));
        budget.held(600_000, 0);
        assertEquals(300_000, budget.used());
    }

    @Test
    void everySessionHeldCountsItsEstimatedCost() {
        budget.sessions(100);
        assertEquals(100 * MemoryBudget.SESSION_COST, budget.used());
        budget.sessions(0);
        assertEquals(0, budget.used());
    }

    @Test
    void sessionsMayTakeHalfTheBudgetAtMost() {
        var small = new MemoryBudget(10 * MemoryBudget.SESSION_COST, 0);
        small.sessions(4);
        assertTrue(small.hasRoomForSession());
        small.sessions(5);
        assertFalse(small.hasRoomForSession(), "five is half");
        var full = new MemoryBudget(10 * MemoryBudget.SESSION_COST, 0);
        full.held(0, 9 * MemoryBudget.SESSION_COST + 1);
        assertFalse(full.hasRoomForSession(), "nor past the budget itself");
    }

    @Test
    void aClientMayTakeUpToItsShare() {
        assertTrue(budget.mayTake(60_000, 40_000));
        assertFalse(budget.mayTake(60_000, 40_001));
    }

    @Test
    void aClientThatHoldsNothingMayTakeOneMessageLargerThanItsShare() {
        assertTrue(budget.mayTake(0, 500_000), "else it could never get a message that large");
        assertFalse(budget.mayTake(MemoryBudget.MESSAGE_OVERHEAD, 500_000));
    }

    @Test
    void pastTheHighWaterMarkOnlyAClientWithinItsFairShareTakesMoreUpToTheBudget() {
        var noShare = new MemoryBudget(1_000_000, 0);
        noShare.held(0, 850_000);
        noShare.held(0, 60_000);  // 910,000: past 900,000; the fair share is a third of the budget
        assertFalse(noShare.mayTake(850_000, 1), "the client holding most takes no more");
        assertTrue(noShare.mayTake(60_000, 1_000));
        assertFalse(noShare.mayTake(60_000, 100_000), "not past the budget itself");
    }

    @Test
    void aClientThatHoldsNothingTakesOneMessageFromAReserveOfATenthPastTheBudget() {
        budget.held(0, 990_000);
        assertFalse(budget.mayTake(MemoryBudget.MESSAGE_OVERHEAD, 20_000), "a client holding a message waits: it would pass the budget");
        assertTrue(budget.mayTake(0, 60_000), "one that holds nothing is served: it reads, or it is new");
        assertFalse(budget.mayTake(0, 160_000), "within the reserve");
    }

    @Test
    void aClientWithOnlyAcknowledgementsWaitingForItsSocketHoldsNoMessage() {
        assertTrue(budget.mayTake(MemoryBudget.MESSAGE_OVERHEAD - 1, 500_000), "it may take one message past its share");
        budget.held(0, 990_000);
        assertTrue(budget.mayTake(4, 60_000), "its PUBACK, written in the turn that routed its own message back to it");
        assertFalse(budget.mayTake(MemoryBudget.MESSAGE_OVERHEAD, 60_000), "what any message costs is a message");
    }

    @Test
    void roomForAClientIsWhatIsLeftOfItsShareAndOfTheBudget() {
        assertEquals(70_000, budget.roomFor(30_000));
        budget.held(0, 880_000);
        assertEquals(20_000, budget.roomFor(30_000), "up to the high-water mark");
        budget.held(0, 60_000);
        assertEquals(60_000, budget.roomFor(30_000), "past it, up to the budget");
        budget.held(0, 100_000);
        assertEquals(0, budget.roomFor(30_000), "never negative");
    }

    @Test
    void theHighWaterMarkIsNineTenthsOfTheBudget() {
        budget.held(0, 900_000);
        assertFalse(budget.isPastHighWater());
        budget.held(0, 1);
        assertTrue(budget.isPastHighWater());
    }

    @Test
    void theFairShareIsTheBudgetDividedAmongTheClientsHoldingBytesAndOneMoreAtMostTheShare() {
        var noShare = new MemoryBudget(1_000_000, 0);
        noShare.held(0, 900_000);
        assertEquals(500_000, noShare.fairShare(), "a client holding most of the budget alone is over its fair share");
        for (int i = 0; i < 19; i++) noShare.held(0, 10);
        assertEquals(1_000_000 / 21, noShare.fairShare(), "twenty clients and one more");
        noShare.held(10, 0);
        assertEquals(1_000_000 / 20, noShare.fairShare(), "a client that holds nothing again no longer divides it");
        noShare.held(10, 20);
        assertEquals(1_000_000 / 20, noShare.fairShare(), "one that holds more is still one");
        assertEquals(100_000, budget.fairShare(), "never more than a client's share");
    }

    @Test
    void theRetainedMessagesPartCountsWithoutBeingAClient() {
        var noShare = new MemoryBudget(1_000_000, 0);
        noShare.shared(400_000);
        assertEquals(400_000, noShare.used());
        assertEquals(1_000_000, noShare.fairShare(), "no client holds it: the budget is not divided for it");
        noShare.shared(-400_000);
        assertEquals(0, noShare.used());
    }

    @Test
    void withoutALimitItCountsAndRefusesNothing() {
        var unlimited = new MemoryBudget(0, 0);
        unlimited.held(0, Long.MAX_VALUE / 4);
        assertEquals(Long.MAX_VALUE / 4, unlimited.used());
        assertTrue(unlimited.hasRoomFor(Long.MAX_VALUE / 4));
        assertTrue(unlimited.mayTake(Long.MAX_VALUE / 4, 1_000_000));
        assertFalse(unlimited.isPastHighWater());
    }

    @Test
    void noneCountsNothing() {
        MemoryBudget.NONE.held(0, 1_000);
        MemoryBudget.NONE.dropped(3);
        MemoryBudget.NONE.sessions(10);
        assertEquals(0, MemoryBudget.NONE.used());
        assertEquals(0, MemoryBudget.NONE.figures().dropped());
    }

    @Test
    void itsFiguresSayWhatWasUsedAndRefused() {
        budget.held(0, 5);
        budget.dropped(2);
        budget.disconnected();
        budget.sessionRefused();
        budget.retainedRefused();
        var figures = budget.figures();
        assertEquals(5, figures.used());
        assertEquals(1_000_000, figures.budget());
        assertEquals(2, figures.dropped());
        assertEquals(1, figures.disconnected());
        assertEquals(1, figures.sessionsRefused());
        assertEquals(1, figures.retainedRefused());
    }
}
