package io.pekquitto.shards.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LoadAverageTest {
    @Test
    void aSteadyRateIsApproachedAndKept() {
        var load = new LoadAverage();
        load.sample(0, 10);
        for (int i = 1; i <= 600; i++) load.sample(i * 100L, 10);  // 100 per 10 s = 600 a minute, for 100 minutes

        assertEquals(600, load.oneMinute(), 0.01);
        assertEquals(600, load.fiveMinutes(), 0.01);
        assertEquals(600 * (1 - Math.exp(-6000.0 / 900)), load.fifteenMinutes(), 0.01);  // 100 minutes of a 15-minute decay
    }

    @Test
    void anIdleBrokerDecaysTowardsZeroFastestOverOneMinute() {
        var load = new LoadAverage();
        load.sample(0, 10);
        load.sample(6000, 60);  // 6,000 a minute for one minute
        double one = load.oneMinute();
        load.sample(6000, 60);  // then nothing for a minute

        assertEquals(one * Math.exp(-1), load.oneMinute(), 0.01);
        assertEquals(6000 * (1 - Math.exp(-60.0 / 900)) * Math.exp(-60.0 / 900), load.fifteenMinutes(), 0.01);
    }
}
