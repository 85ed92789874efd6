package io.pekquitto.shards.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

/**
 * An idle loop spins (polls without blocking) for its spin time, then sleeps; any work starts the spin again;
 * it stops spinning while most of its idle moments outlast the spin, and spins again once they end sooner.
 */
class SpinThenSleepTest {
    private long now = 1_000;
    private final SpinThenSleep strategy = new SpinThenSleep(100, () -> now);

    @Test
    void readySocketsOrTasksAreHandledAtOnce() throws Exception {
        assertEquals(3, strategy.calculateStrategy(() -> 3, false));
        assertEquals(0, strategy.calculateStrategy(() -> 0, true), "tasks: run them, with what the poll found");
    }

    @Test
    void idleItPollsForItsSpinTimeThenSleeps() throws Exception {
        assertSpinsItsTimeThenSleeps("idle from the start");
    }

    /** Idle from now: polls for the spin time (100 on the test clock), then sleeps. */
    private void assertSpinsItsTimeThenSleeps(String when) throws Exception {
        assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false), when);
        now += 99;
        assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false));
        now += 1;
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false));
    }

    @Test
    void workDuringTheSpinStartsItAgain() throws Exception {
        assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false));
        now += 90;
        assertEquals(1, strategy.calculateStrategy(() -> 1, false));
        now += 50;
        assertSpinsItsTimeThenSleeps("idle again from now");
    }

    @Test
    void withoutASpinItSleepsAtOnce() throws Exception {
        var sleeper = new SpinThenSleep(0, () -> now);
        assertEquals(SelectStrategy.SELECT, sleeper.calculateStrategy(() -> 0, false));
    }

    /** An idle moment with no work within the spin: the loop spins its time for nothing, then sleeps. */
    private void spinInVain() throws Exception {
        assertSpinsItsTimeThenSleeps("a spin with no work");
        now += 5_000;  // the work comes long after
    }

    @Test
    void spinningThatDoesNotPayStopsAndTheLoopSleepsAtOnce() throws Exception {
        for (int i = 0; i < SpinThenSleep.WINDOW / 2 + 1; i++) spinInVain();
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false),
                "more than half of the last idle moments outlasted the spin");
    }

    @Test
    void aSleepingLoopWhoseWorkComesSoonSpinsAgain() throws Exception {
        for (int i = 0; i < SpinThenSleep.WINDOW / 2 + 1; i++) spinInVain();
        for (int i = 0; i < SpinThenSleep.WINDOW; i++) {  // asleep at once, and woken late: none of the last moments paid
            assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false));
            now += 5_000;
            assertEquals(1, strategy.calculateStrategy(() -> 1, false));
        }
        for (int sleeps = 0; sleeps < SpinThenSleep.WINDOW / 2; sleeps++) {
            assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false), "sleeps at once");
            now += 30;  // woken within the spin time: a spin would have paid
            assertEquals(1, strategy.calculateStrategy(() -> 1, false));
        }
        assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false), "half the moments paid: spins");
    }
}
