package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.settings.BridgeSettings.Direction;
import io.pekquitto.shards.settings.BridgeSettings.Topic;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Mosquitto's prefix rules (mosquitto.conf(5), "topic"), first matching entry first, QoS at most the entry's. */
class TopicMappingTest {

    private static Optional<String> out(TopicMapping mapping, String topic) {
        return mapping.toRemote(topic, QoS.EXACTLY_ONCE).map(TopicMapping.Mapped::topic);
    }

    private static Optional<String> in(TopicMapping mapping, String topic) {
        return mapping.toLocal(topic, QoS.EXACTLY_ONCE).map(TopicMapping.Mapped::topic);
    }

    @Test
    void bothPrefixesTradePlaces() {
        var mapping = new TopicMapping(List.of(new Topic("#", Direction.BOTH, QoS.EXACTLY_ONCE, "local/topic/", "remote/topic/")));
        assertEquals("local/topic/#", mapping.outgoing().get(0).localFilter());
        assertEquals("remote/topic/#", mapping.incoming().get(0).remoteFilter());
        assertEquals(Optional.of("remote/topic/a/b"), out(mapping, "local/topic/a/b"));
        assertEquals(Optional.of("local/topic/a/b"), in(mapping, "remote/topic/a/b"));
        assertEquals(Optional.empty(), out(mapping, "other/a"));
    }

    @Test
    void oneEmptyPrefixAddsOrRemovesTheOther() {
        var localOnly = new TopicMapping(List.of(new Topic("pattern", Direction.BOTH, QoS.AT_MOST_ONCE, "L/", "")));
        assertEquals(Optional.of("pattern"), out(localOnly, "L/pattern"));
        assertEquals(Optional.of("L/pattern"), in(localOnly, "pattern"));
        var remoteOnly = new TopicMapping(List.of(new Topic("pattern", Direction.BOTH, QoS.AT_MOST_ONCE, "", "R/")));
        assertEquals(Optional.of("R/pattern"), out(remoteOnly, "pattern"));
        assertEquals(Optional.of("pattern"), in(remoteOnly, "R/pattern"));
    }

    @Test
    void anEmptyPatternMapsOneTopicToAnother() {
        var mapping = new TopicMapping(List.of(new Topic("", Direction.BOTH, QoS.AT_LEAST_ONCE, "local", "remote")));
        assertEquals(Optional.of("remote"), out(mapping, "local"));
        assertEquals(Optional.of("local"), in(mapping, "remote"));
        assertEquals(Optional.empty(), out(mapping, "local/more"));
    }

    @Test
    void eachDirectionOnlyItsOwnWay() {
        var mapping = new TopicMapping(List.of(new Topic("up/#", Direction.OUT, QoS.AT_LEAST_ONCE),
                new Topic("down/#", Direction.IN, QoS.AT_LEAST_ONCE)));
        assertEquals(Optional.of("up/x"), out(mapping, "up/x"));
        assertEquals(Optional.empty(), in(mapping, "up/x"));
        assertEquals(Optional.of("down/x"), in(mapping, "down/x"));
        assertEquals(Optional.empty(), out(mapping, "down/x"));
        assertEquals(1, mapping.outgoing().size());
        assertEquals(1, mapping.incoming().size());
    }

    @Test
    void theFirstMatchingEntryDecidesAndTheQosIsAtMostItsOwn() {
        var mapping = new TopicMapping(List.of(new Topic("a/#", Direction.OUT, QoS.AT_MOST_ONCE, "", "first/"),
                new Topic("a/b", Direction.OUT, QoS.EXACTLY_ONCE, "", "second/")));
        var mapped = mapping.toRemote("a/b", QoS.EXACTLY_ONCE).orElseThrow();
        assertEquals("first/a/b", mapped.topic());
        assertEquals(QoS.AT_MOST_ONCE, mapped.qos());
        var lower = new TopicMapping(List.of(new Topic("#", Direction.OUT, QoS.EXACTLY_ONCE)));
        assertEquals(QoS.AT_LEAST_ONCE, lower.toRemote("x", QoS.AT_LEAST_ONCE).orElseThrow().qos());
    }
}
