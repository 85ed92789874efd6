package io.pekquitto.shards.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SysTopicsTest {
    private static ShardFigures shard(int index, int connections, int offline, long publishReceived, long dropped) {
        var gauges = new ShardFigures.Gauges(connections, 1, connections + offline, offline, 3, 4, 2, 1, dropped, 7, 0);
        return new ShardFigures(index, 100, 200, 1000, 2000, publishReceived, 8, 50, 60, 0, 0, 5, gauges, MemoryFigures.NONE);
    }

    private static BrokerFigures figures(long uptime, long publishReceived) {
        return new BrokerFigures(uptime, List.of(shard(0, 2, 1, publishReceived, 0), shard(1, 3, 0, 0, 2)), 6, 10, 20,
                new StoreFigures(true, true, 30, 5000, 7, 1), 4);
    }

    @Test
    void mosquittosTopicsWithTheSumsOverTheShards() {
        var topics = new SysTopics("1.0").changed(figures(42, 10), 10);

        assertEquals("pekquitto 1.0", topics.get("$SYS/broker/version"));
        assertEquals("42 seconds", topics.get("$SYS/broker/uptime"));
        assertEquals("5", topics.get("$SYS/broker/clients/connected"));
        assertEquals("1", topics.get("$SYS/broker/clients/disconnected"));
        assertEquals("6", topics.get("$SYS/broker/clients/total"));
        assertEquals("6", topics.get("$SYS/broker/clients/maximum"));
        assertEquals("2", topics.get("$SYS/broker/clients/expired"));
        assertEquals("2", topics.get("$SYS/broker/clients/parked"));
        assertEquals("4", topics.get("$SYS/broker/clients/refused"), "the listeners' refusals");
        assertEquals("200", topics.get("$SYS/broker/messages/received"));
        assertEquals("10", topics.get("$SYS/broker/publish/messages/received"));
        assertEquals("2", topics.get("$SYS/broker/publish/messages/dropped"), "the offline sessions' drops count");
        assertEquals("2", topics.get("$SYS/broker/retained messages/count"), "each shard holds all: counted once");
        assertEquals("6", topics.get("$SYS/broker/subscriptions/count"));
        assertEquals("30", topics.get("$SYS/broker/store/bytes"));
        assertEquals("failing", topics.get("$SYS/broker/store/state"));
        assertEquals("7", topics.get("$SYS/broker/store/refused"));
        assertEquals("5000", topics.get("$SYS/broker/store/free-bytes"));
        assertEquals("10", topics.get("$SYS/broker/heap/current"));
        assertEquals("14", topics.get("$SYS/broker/mesh/batches"));
        assertEquals("3", topics.get("$SYS/broker/shards/1/clients/connected"));
        assertEquals("2", topics.get("$SYS/broker/shards/1/publish/messages/dropped"));
        assertEquals("0.00", topics.get("$SYS/broker/load/publish/received/1min"), "no rate before a second sample");
    }

    @Test
    void extrasArePublishedBesideTheBrokersOwnAndOnlyWhenTheyChange() {
        var sys = new SysTopics("1.0");
        var first = sys.changed(figures(10, 0), Map.of("cluster/nodes", "3"), 10);
        assertEquals("3", first.get("$SYS/broker/cluster/nodes"));
        assertEquals("5", first.get("$SYS/broker/clients/connected"));

        assertFalse(sys.changed(figures(20, 0), Map.of("cluster/nodes", "3"), 10).containsKey("$SYS/broker/cluster/nodes"));
        assertEquals("2", sys.changed(figures(30, 0), Map.of("cluster/nodes", "2"), 10).get("$SYS/broker/cluster/nodes"));
    }

    @Test
    void aSampleGivesOnlyWhatChangedAndTheLoadMovesWithTheRate() {
        var sys = new SysTopics("1.0");
        sys.changed(figures(10, 0), 10);

        var next = sys.changed(figures(20, 600), 10);  // 600 publishes in 10 s: 3,600 a minute

        assertFalse(next.containsKey("$SYS/broker/version"), "unchanged: not published again");
        assertEquals("20 seconds", next.get("$SYS/broker/uptime"));
        assertEquals("600", next.get("$SYS/broker/publish/messages/received"));
        double oneMinute = Double.parseDouble(next.get("$SYS/broker/load/publish/received/1min"));
        double fifteen = Double.parseDouble(next.get("$SYS/broker/load/publish/received/15min"));
        assertEquals(3600 * (1 - Math.exp(-10.0 / 60)), oneMinute, 0.01);
        assertTrue(fifteen > 0 && fifteen < oneMinute, "the longer window moves slower");
    }

    @Test
    void theMemoryBudgetsAreSummedOverTheShardsAndShownPerShard() {
        var gauges = new ShardFigures.Gauges(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        var one = new ShardFigures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, gauges, new MemoryFigures(300, 1000, 7, 1, 2, 3));
        var two = new ShardFigures(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, gauges, new MemoryFigures(500, 1000, 1, 0, 0, 0));
        var topics = new SysTopics("1.0").changed(new BrokerFigures(1, List.of(one, two), 0, 0, 0, StoreFigures.NONE, 0), 10);

        assertEquals("800", topics.get("$SYS/broker/memory/used"));
        assertEquals("2000", topics.get("$SYS/broker/memory/budget"));
        assertEquals("8", topics.get("$SYS/broker/memory/dropped"));
        assertEquals("8", topics.get("$SYS/broker/publish/messages/dropped"), "every drop counts in Mosquitto's figure too");
        assertEquals("1", topics.get("$SYS/broker/memory/disconnected"));
        assertEquals("2", topics.get("$SYS/broker/memory/sessions-refused"));
        assertEquals("3", topics.get("$SYS/broker/memory/retained-refused"));
        assertEquals("500", topics.get("$SYS/broker/shards/1/memory/used"));
        assertEquals("1000", topics.get("$SYS/broker/shards/1/memory/budget"));
    }
}
