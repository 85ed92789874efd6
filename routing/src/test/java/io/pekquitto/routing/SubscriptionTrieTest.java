package io.pekquitto.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubscriptionTrieTest {
    private final SubscriptionTrie<String, Integer> trie = new SubscriptionTrie<>();

    /** The filters that match the topic, sorted, one entry per visit (so duplicates show). */
    private List<String> matchingFilters(String topic) {
        var filters = new ArrayList<String>();
        trie.forEachMatch(topic, (filter, key, value) -> filters.add(filter));
        filters.sort(null);
        return filters;
    }

    private boolean matches(String filter, String topic) {
        var single = new SubscriptionTrie<String, Integer>();
        single.put(filter, "client", 1);
        var found = new ArrayList<String>();
        single.forEachMatch(topic, (f, key, value) -> found.add(f));
        return found.equals(List.of(filter));
    }

    @Test
    void hashMatchesTheParentLevelAndEveryLevelBelow() {  // 4.7.1.2
        assertEquals(true, matches("sport/tennis/player1/#", "sport/tennis/player1"));
        assertEquals(true, matches("sport/tennis/player1/#", "sport/tennis/player1/ranking"));
        assertEquals(true, matches("sport/tennis/player1/#", "sport/tennis/player1/score/wimbledon"));
        assertEquals(true, matches("sport/#", "sport"));
        assertEquals(false, matches("sport/tennis/player1/#", "sport/tennis"));
        assertEquals(false, matches("sport/tennis/player1/#", "sport/tennis/player2"));
    }

    @Test
    void hashAloneMatchesEveryTopicNotStartingWithDollar() {  // 4.7.1.2, [MQTT-4.7.2-1]
        assertEquals(true, matches("#", "sport"));
        assertEquals(true, matches("#", "/"));
        assertEquals(true, matches("#", "sport/tennis/player1"));
        assertEquals(false, matches("#", "$SYS/x"));
        assertEquals(false, matches("#", "$SYS"));
    }

    @Test
    void plusMatchesExactlyOneLevel() {  // 4.7.1.3
        assertEquals(true, matches("sport/tennis/+", "sport/tennis/player1"));
        assertEquals(true, matches("sport/tennis/+", "sport/tennis/player2"));
        assertEquals(false, matches("sport/tennis/+", "sport/tennis/player1/ranking"));
        assertEquals(false, matches("sport/+", "sport"));
        assertEquals(true, matches("sport/+", "sport/"));
        assertEquals(true, matches("+/tennis/#", "sport/tennis"));
    }

    @Test
    void emptyLevelsAreLevels() {  // 4.7.1.3: "/finance" has two levels, the first empty
        assertEquals(true, matches("+/+", "/finance"));
        assertEquals(true, matches("/+", "/finance"));
        assertEquals(false, matches("+", "/finance"));
        assertEquals(true, matches("a//b", "a//b"));
        assertEquals(false, matches("a/b", "a//b"));
        assertEquals(true, matches("a/+/b", "a//b"));
        assertEquals(true, matches("a/+", "a/"));
        assertEquals(false, matches("a", "a/"));
        assertEquals(true, matches("/", "/"));
    }

    @Test
    void wildcardFirstLevelDoesNotMatchDollarTopics() {  // [MQTT-4.7.2-1], 4.7.2 examples
        assertEquals(false, matches("#", "$SYS/monitor/Clients"));
        assertEquals(false, matches("+/monitor/Clients", "$SYS/monitor/Clients"));
        assertEquals(true, matches("$SYS/#", "$SYS/monitor/Clients"));
        assertEquals(true, matches("$SYS/monitor/+", "$SYS/monitor/Clients"));
        assertEquals(true, matches("$SYS/#", "$SYS"));
        assertEquals(true, matches("$SYS/+", "$SYS/x"));
        assertEquals(true, matches("$SYS/x/#", "$SYS/x/y"));
    }

    @Test
    void wildcardBelowTheFirstLevelMatchesDollarLevels() {  // only the topic's first character counts
        assertEquals(true, matches("a/+", "a/$b"));
        assertEquals(true, matches("a/#", "a/$b/c"));
    }

    @Test
    void levelsAreCaseSensitive() {  // 4.7.3
        assertEquals(false, matches("ACCOUNTS", "Accounts"));
        assertEquals(false, matches("accounts/+", "Accounts/x"));
    }

    @Test
    void everyMatchingFilterIsVisitedOncePerSubscriber() {
        trie.put("a/b", "c1", 0);
        trie.put("a/b", "c2", 1);
        trie.put("a/+", "c1", 0);
        trie.put("+/b", "c1", 1);
        trie.put("+/+", "c1", 2);
        trie.put("a/#", "c1", 0);
        trie.put("#", "c3", 0);
        trie.put("a/b/#", "c1", 2);
        trie.put("a/c", "c1", 0);
        trie.put("a/b/c", "c1", 0);

        assertEquals(List.of("#", "+/+", "+/b", "a/#", "a/+", "a/b", "a/b", "a/b/#"), matchingFilters("a/b"));
    }

    @Test
    void visitorReceivesTheStoredFilterKeyAndValue() {
        trie.put("a/+", "c1", 7);
        var seen = new ArrayList<String>();
        trie.forEachMatch("a/b", (filter, key, value) -> seen.add(filter + " " + key + " " + value));
        assertEquals(List.of("a/+ c1 7"), seen);
    }

    @Test
    void resubscribingReplacesTheValue() {  // [MQTT-3.8.4-3]
        assertNull(trie.put("a/+", "c1", 1));
        assertEquals(1, trie.put("a/+", "c1", 2));
        assertEquals(1, trie.size());
        assertEquals(2, trie.get("a/+", "c1"));
        var values = new ArrayList<Integer>();
        trie.forEachMatch("a/b", (filter, key, value) -> values.add(value));
        assertEquals(List.of(2), values);
    }

    @Test
    void removeReturnsTheValueAndStopsMatching() {
        trie.put("a/+", "c1", 1);
        trie.put("a/+", "c2", 2);
        assertEquals(1, trie.remove("a/+", "c1"));
        assertNull(trie.remove("a/+", "c1"));
        assertEquals(1, trie.size());
        var keys = new ArrayList<String>();
        trie.forEachMatch("a/b", (filter, key, value) -> keys.add(key));
        assertEquals(List.of("c2"), keys);
    }

    @Test
    void removeOfAnAbsentSubscriptionChangesNothing() {
        trie.put("a/b", "c1", 1);
        assertNull(trie.remove("a/b", "c2"));
        assertNull(trie.remove("a", "c1"));
        assertNull(trie.remove("a/b/c", "c1"));
        assertNull(trie.remove("a/+", "c1"));
        assertNull(trie.remove("x/#", "c1"));
        assertEquals(1, trie.size());
        assertEquals(3, trie.nodeCount());
    }

    @Test
    void removingEverySubscriptionPrunesBackToTheRoot() {
        var filters = List.of("a/b/c", "a/+/c", "a/#", "#", "+", "/", "a//b", "$SYS/#", "a/b");
        for (var filter : filters) {
            trie.put(filter, "c1", 0);
            trie.put(filter, "c2", 0);
        }
        for (var filter : filters) {
            trie.remove(filter, "c1");
            trie.remove(filter, "c2");
        }
        assertEquals(0, trie.size());
        assertEquals(1, trie.nodeCount());
    }

    @Test
    void removingAPrefixFilterKeepsTheLongerOnes() {
        trie.put("a/b", "c1", 0);
        trie.put("a/b/c", "c1", 0);
        trie.put("a/+/#", "c1", 0);
        assertEquals(6, trie.nodeCount());  // root, a, a/b, a/b/c, a/+, a/+/#

        trie.remove("a/b", "c1");
        assertEquals(6, trie.nodeCount());  // a/b stays: a/b/c hangs from it
        assertEquals(List.of("a/+/#", "a/b/c"), matchingFilters("a/b/c"));

        trie.remove("a/b/c", "c1");
        assertEquals(4, trie.nodeCount());  // root, a, a/+, a/+/#
    }

    @Test
    void invalidFiltersAreRejected() {  // 4.7.1, [MQTT-4.7.3-1]
        assertThrows(IllegalArgumentException.class, () -> trie.put("", "c1", 0));
        assertThrows(IllegalArgumentException.class, () -> trie.put("a/#/b", "c1", 0));
        assertThrows(IllegalArgumentException.class, () -> trie.put("a+", "c1", 0));
        assertThrows(IllegalArgumentException.class, () -> trie.put("a/b#", "c1", 0));
        assertEquals(1, trie.nodeCount());
    }

    @Test
    void sharedFiltersAreStoredLiterally() {  // $share is the caller's concern (4.8.2)
        trie.put("$share/g/a", "c1", 0);
        assertEquals(List.of(), matchingFilters("a"));
        assertEquals(List.of("$share/g/a"), matchingFilters("$share/g/a"));
    }

    @Test
    void deepFiltersAndTopicsDoNotOverflowTheStack() {  // a client sets the depth
        int levels = 32_768;  // as many as a 65,535-byte filter holds
        var plusses = String.join("/", java.util.Collections.nCopies(levels, "+"));
        var topic = String.join("/", java.util.Collections.nCopies(levels, "x"));
        trie.put(plusses, "c1", 0);
        trie.put(topic + "/#", "c1", 0);
        trie.put("#", "c1", 0);

        assertEquals(List.of("#", plusses, topic + "/#"), matchingFilters(topic));

        trie.remove(plusses, "c1");
        trie.remove(topic + "/#", "c1");
        trie.remove("#", "c1");
        assertEquals(1, trie.nodeCount());
    }

    @Test
    void aVisitorMayMatchAgain() {  // the pending stack is shared, each call works above its base
        trie.put("a/+/c", "c1", 0);
        trie.put("+/+/+", "c1", 0);
        trie.put("x/#", "c1", 0);
        var inner = new ArrayList<String>();
        var outer = new ArrayList<String>();
        trie.forEachMatch("a/b/c", (filter, key, value) -> {
            outer.add(filter);
            trie.forEachMatch("x/y", (f, k, v) -> inner.add(f));
        });
        outer.sort(null);
        assertEquals(List.of("+/+/+", "a/+/c"), outer);
        assertEquals(List.of("x/#", "x/#"), inner);
    }
}
