package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void valuesFlagsAndDefaults() {
        var options = Options.parse("fanin", "--qos", "2", "--duration", "2.5", "--json");
        assertEquals("fanin", options.scenario);
        assertEquals(2, options.integer("qos", 0, 0, 2));
        assertEquals(2_500_000_000L, options.nanos("duration", 10));
        assertEquals(10, options.integer("publishers", 10, 1, 100));
        assertTrue(options.flag("json"));
        var takeover = Options.parse("takeover", "--port", "1883", "--subscriber-port", "1884", "--takeovers", "50");
        assertEquals(50, takeover.integer("takeovers", 200, 1, 100_000));
    }

    @Test
    void mistakesAreUsageErrors() {
        assertThrows(Options.UsageException.class, () -> Options.parse("nonsense"));
        assertThrows(Options.UsageException.class, () -> Options.parse("fanin", "--qos"));
        assertThrows(Options.UsageException.class, () -> Options.parse("fanin", "--bogus", "1"));
        var options = Options.parse("fanin", "--qos", "3");
        assertThrows(Options.UsageException.class, () -> options.integer("qos", 0, 0, 2));
    }

    @Test
    void webSocketPathFromWsOrWebsocket() {
        assertEquals(null, Bench.Context.webSocketPath(Options.parse("idle")));
        assertEquals("/mqtt", Bench.Context.webSocketPath(Options.parse("idle", "--ws")));
        assertEquals("/ws/mqtt", Bench.Context.webSocketPath(Options.parse("idle", "--websocket", "/ws/mqtt")));
        assertThrows(Options.UsageException.class, () -> Bench.Context.webSocketPath(Options.parse("idle", "--websocket", "mqtt")));
        assertThrows(Options.UsageException.class, () -> Bench.Context.webSocketPath(Options.parse("idle", "--websocket", "/a b")));
    }

    @Test
    void rssLineParses() {
        assertEquals(12_345, IdleScenario.parseKib("VmRSS:\t   12345 kB"));
    }

    @Test
    void heapInfoParses() {
        var info = " garbage-first heap   total 262144K, used 27012K [0x0000000700000000, 0x0000000800000000)\n"
                + "  region size 1024K, 12 young (12288K), 0 survivors (0K)\n";
        assertEquals(27_012, IdleScenario.parseHeapUsedKib(info));
    }

    @Test
    void serialHeapInfoAddsItsGenerations() {
        var info = " def new generation   total 6464K, used 13K [0x00000000f0000000, 0x00000000f0700000, 0x00000000f5550000)\n"
                + "  eden space 5760K,   0% used [0x00000000f0000000, 0x00000000f0003400, 0x00000000f05a0000)\n"
                + " tenured generation   total 14144K, used 8485K [0x00000000f5550000, 0x00000000f6320000, 0x0000000100000000)\n"
                + "   the space 14144K,  59% used [0x00000000f5550000, 0x00000000f5d997c0, 0x00000000f5d99800, 0x00000000f6320000)\n"
                + " Metaspace       used 24183K, committed 24576K, reserved 1114112K\n";
        assertEquals(8_498, IdleScenario.parseHeapUsedKib(info));
        assertEquals(-1, IdleScenario.parseHeapUsedKib(" Metaspace       used 24183K, committed 24576K\n"));
    }

    @Test
    void percentilesUseTheNearestRank() {
        long[] sorted = new long[100];
        for (int i = 0; i < 100; i++) sorted[i] = (i + 1) * 1_000L;
        assertEquals(50.0, LatencyScenario.micros(sorted, 0.50));
        assertEquals(99.0, LatencyScenario.micros(sorted, 0.99));
        assertEquals(100.0, LatencyScenario.micros(sorted, 1.0));
    }

    @Test
    void jsonEscapesText() {
        var report = new Report("fanin").put("label", "a\"b").put("rate", 1.5).put("n", 3L);
        assertEquals("{\"scenario\":\"fanin\",\"label\":\"a\\\"b\",\"rate\":1.500,\"n\":3}", report.json());
    }

    @Test
    void slowSubscribersAreNoneByDefault() {
        assertEquals(0, PubSubScenario.slowSubscribers(Options.parse("fanin", "--qos", "1")));
    }

    @Test
    void slowSubscribersTakeACountBesideTheOtherFaninOptions() {
        var options = Options.parse("fanin", "--qos", "1", "--max-lag", "50", "--slow-subscribers", "1", "--json");
        assertEquals(1, PubSubScenario.slowSubscribers(options));
        assertEquals(1, options.integer("qos", 0, 0, 2));
        assertEquals(50, options.longValue("max-lag", 0));
        assertTrue(options.flag("json"));
    }

    @Test
    void slowSubscribersAlsoApplyToFanout() {
        assertEquals(3, PubSubScenario.slowSubscribers(Options.parse("fanout", "--slow-subscribers", "3")));
    }

    @Test
    void slowSubscribersMustBeACountInRange() {
        for (var bad : new String[] {"-1", "10001", "one", ""}) {
            var options = Options.parse("fanin", "--slow-subscribers", bad);
            var e = assertThrows(Options.UsageException.class, () -> PubSubScenario.slowSubscribers(options), bad);
            assertTrue(e.getMessage().startsWith("--slow-subscribers "), e.getMessage());
        }
    }

    @Test
    void slowSubscribersNeedAValue() {
        var e = assertThrows(Options.UsageException.class, () -> Options.parse("fanin", "--slow-subscribers"));
        assertEquals("option --slow-subscribers needs a value", e.getMessage());
    }

    @Test
    void slowSubscribersAreInTheUsage() {
        assertTrue(Options.USAGE.contains("--slow-subscribers K"));
    }

    @Test
    void slowSubscriberIsAnOptionOfFaninNotAScenario() {
        assertEquals("unknown scenario slow-subscriber", assertThrows(Options.UsageException.class,
                () -> Options.parse("slow-subscriber")).getMessage());
    }
}
