package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BrokerCpuTest {
    @Test
    void userAndSystemTicksAreReadAfterACommandNameWithSpacesAndParentheses() {
        var stat = "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 40 0 123 456 789";
        assertEquals((250 + 31) * 10_000_000L, BrokerCpu.nanosOf(stat));
    }

    @Test
    void thisProcessHasUsedSomeCpu() {
        assertTrue(BrokerCpu.nanos(ProcessHandle.current().pid()) > 0, "a JVM that ran tests used CPU");
    }
}
