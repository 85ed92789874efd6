package io.pekquitto.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetainedIndexTest {
    private final RetainedIndex<String> index = new RetainedIndex<>();

    /** The topics the filter finds, sorted, one entry per visit (so duplicates show). */
    private List<String> matchingTopics(String filter) {
        var topics = new ArrayList<String>();
        index.forEachMatching(filter, (topic, message) -> topics.add(topic));
        topics.sort(null);
        return topics;
    }

    private void retain(String... topics) {
        for (var topic : topics) index.put(topic, "message on " + topic);
    }

    @Test
    void hashFindsTheParentLevelAndEveryLevelBelow() {  // 4.7.1.2
        retain("sport", "sport/tennis", "sport/tennis/player1", "sport/tennis/player1/ranking",
                "sport/tennis/player1/score/wimbledon", "sport/tennis/player2", "sports");
        assertEquals(List.of("sport/tennis/player1", "sport/tennis/player1/ranking", "sport/tennis/player1/score/wimbledon"),
                matchingTopics("sport/tennis/player1/#"));
        assertEquals(List.of("sport", "sport/tennis", "sport/tennis/player1", "sport/tennis/player1/ranking",
                "sport/tennis/player1/score/wimbledon", "sport/tennis/player2"), matchingTopics("sport/#"));
    }

    @Test
    void plusFindsExactlyOneLevel() {  // 4.7.1.3
        retain("sport", "sport/", "sport/tennis/player1", "sport/tennis/player2", "sport/tennis/player1/ranking");
        assertEquals(List.of("sport/tennis/player1", "sport/tennis/player2"), matchingTopics("sport/tennis/+"));
        assertEquals(List.of("sport/"), matchingTopics("sport/+"));
    }

    @Test
    void emptyLevelsAreLevels() {  // 4.7.1.3: "/finance" has two levels, the first empty
        retain("/finance", "finance", "a//b", "a/b", "/");
        assertEquals(List.of("/", "/finance", "a/b"), matchingTopics("+/+"));
        assertEquals(List.of("/", "/finance"), matchingTopics("/+"));
        assertEquals(List.of("finance"), matchingTopics("+"));
        assertEquals(List.of("a//b", "a/b"), matchingTopics("a/+/#"));
        assertEquals(List.of("a//b"), matchingTopics("a//b"));
    }

    @Test
    void wildcardFirstLevelDoesNotFindDollarTopics() {  // [MQTT-4.7.2-1], 4.7.2 examples
        retain("$SYS", "$SYS/monitor/Clients", "$SYS/x", "monitor/Clients", "a/$b");
        assertEquals(List.of("a/$b", "monitor/Clients"), matchingTopics("#"));
        assertEquals(List.of(), matchingTopics("+/monitor/Clients"));
        assertEquals(List.of("$SYS", "$SYS/monitor/Clients", "$SYS/x"), matchingTopics("$SYS/#"));
        assertEquals(List.of("$SYS/x"), matchingTopics("$SYS/+"));
        assertEquals(List.of("$SYS/monitor/Clients"), matchingTopics("$SYS/monitor/+"));
        assertEquals(List.of("a/$b"), matchingTopics("a/+"));
    }

    @Test
    void anExactFilterFindsOnlyItsTopic() {
        retain("a/b", "a/b/c", "a", "A/b");
        assertEquals(List.of("a/b"), matchingTopics("a/b"));
        assertEquals(List.of(), matchingTopics("a/c"));
    }

    @Test
    void putReplacesTheMessage() {  // [MQTT-3.3.1-5] in 5.0
        assertNull(index.put("a/b", "first"));
        assertEquals("first", index.put("a/b", "second"));
        assertEquals("second", index.get("a/b"));
        assertEquals(1, index.size());
        var messages = new ArrayList<String>();
        index.forEachMatching("a/+", (topic, message) -> messages.add(message));
        assertEquals(List.of("second"), messages);
    }

    @Test
    void getFindsOnlyStoredTopics() {
        retain("a/b/c");
        assertNull(index.get("a/b"));
        assertNull(index.get("a/b/c/d"));
        assertNull(index.get("x"));
        assertEquals("message on a/b/c", index.get("a/b/c"));
    }

    @Test
    void removePrunesBackToTheRoot() {  // [MQTT-3.3.1-10] in 3.1.1: a zero-byte payload removes
        var topics = List.of("a/b/c", "a/b", "a", "/", "a//b", "$SYS/x", "b");
        topics.forEach(this::retain);
        assertNull(index.remove("a/b/c/d"));
        assertNull(index.remove("x"));
        for (var topic : topics) assertEquals("message on " + topic, index.remove(topic));
        assertNull(index.remove("a/b"));
        assertEquals(0, index.size());
        assertEquals(1, index.nodeCount());
        assertEquals(List.of(), matchingTopics("#"));
    }

    @Test
    void removingAParentTopicKeepsTheChildren() {
        retain("a/b", "a/b/c");
        assertEquals(4, index.nodeCount());  // root, a, a/b, a/b/c
        index.remove("a/b");
        assertEquals(4, index.nodeCount());
        assertEquals(List.of("a/b/c"), matchingTopics("a/#"));
        index.remove("a/b/c");
        assertEquals(1, index.nodeCount());
    }

    @Test
    void theConsumerMayRemoveTheTopicItIsGiven() {  // e.g. an expired retained message
        retain("a", "a/b", "a/b/c", "a/c");
        var seen = new ArrayList<String>();
        index.forEachMatching("a/#", (topic, message) -> {
            seen.add(topic);
            index.remove(topic);
        });
        seen.sort(null);
        assertEquals(List.of("a", "a/b", "a/b/c", "a/c"), seen);
        assertEquals(1, index.nodeCount());
    }

    @Test
    void forEachIncludesDollarTopics() {
        retain("$SYS/x", "a", "a/b");
        var topics = new ArrayList<String>();
        index.forEach((topic, message) -> topics.add(topic));
        topics.sort(null);
        assertEquals(List.of("$SYS/x", "a", "a/b"), topics);
    }

    @Test
    void invalidTopicsAndFiltersAreRejected() {  // [MQTT-4.7.3-1], 4.7.1, [MQTT-3.3.2-2]
        assertThrows(IllegalArgumentException.class, () -> index.put("", "m"));
        assertThrows(IllegalArgumentException.class, () -> index.put("a/+", "m"));
        assertThrows(IllegalArgumentException.class, () -> index.put("a/#", "m"));
        assertThrows(IllegalArgumentException.class, () -> index.forEachMatching("a/#/b", (topic, message) -> {}));
        assertThrows(IllegalArgumentException.class, () -> index.forEachMatching("", (topic, message) -> {}));
        assertEquals(1, index.nodeCount());
    }

    @Test
    void deepTopicsAndFiltersDoNotOverflowTheStack() {  // a client sets the depth
        int levels = 32_768;
        var topic = String.join("/", Collections.nCopies(levels, "x"));
        var plusses = String.join("/", Collections.nCopies(levels, "+"));
        retain(topic);
        assertEquals(List.of(topic), matchingTopics(plusses));
        assertEquals(List.of(topic), matchingTopics("#"));
        assertEquals(List.of(topic), matchingTopics(topic));
        index.remove(topic);
        assertEquals(1, index.nodeCount());
    }
}
