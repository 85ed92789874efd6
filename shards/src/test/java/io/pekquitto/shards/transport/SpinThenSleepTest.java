package io.pekquitto.shards.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

/** An idle loop spins (polls without blocking) for its spin time, then sleeps; any work starts the spin again. */
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
}
