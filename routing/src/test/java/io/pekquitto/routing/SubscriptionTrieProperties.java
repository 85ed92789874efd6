package io.pekquitto.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.TopicFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;

/** The trie against the reference matcher {@link TopicFilter#matches} and a map of subscriptions. */
class SubscriptionTrieProperties {

    record Operation(boolean subscribe, String filter, String key, int value) {}

    record Subscription(String filter, String key) {}

    @Provide
    Arbitrary<Operation> operations() {
        return Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(3, Arbitraries.just(true)),
                        Tuple.of(1, Arbitraries.just(false))),
                TopicArbitraries.filters(),
                Arbitraries.of("c1", "c2", "c3"),
                Arbitraries.integers().between(0, 2)).as(Operation::new);
    }

    @Provide
    Arbitrary<String> topics() {
        return TopicArbitraries.topics();
    }

    /** Applies the operations to the trie and to a map, checking each return value on the way. */
    private static Map<Subscription, Integer> apply(List<Operation> operations, SubscriptionTrie<String, Integer> trie) {
        var reference = new HashMap<Subscription, Integer>();
        for (var operation : operations) {
            var subscription = new Subscription(operation.filter(), operation.key());
            if (operation.subscribe()) {
                assertEquals(reference.put(subscription, operation.value()), trie.put(operation.filter(), operation.key(), operation.value()));
            } else {
                assertEquals(reference.remove(subscription), trie.remove(operation.filter(), operation.key()));
            }
            assertEquals(reference.size(), trie.size());
        }
        return reference;
    }

    @Property
    void matchesAreWhatTheReferenceMatcherFindsEachOnce(
            @ForAll @Size(max = 40) List<@From("operations") Operation> operations,
            @ForAll @Size(min = 1, max = 10) List<@From("topics") String> topics) {
        var trie = new SubscriptionTrie<String, Integer>();
        var reference = apply(operations, trie);
        for (var topic : topics) {
            var expected = new ArrayList<String>();
            reference.forEach((subscription, value) -> {
                if (TopicFilter.matches(subscription.filter(), topic)) {
                    expected.add(subscription.filter() + " " + subscription.key() + " " + value);
                }
            });
            var visited = new ArrayList<String>();
            trie.forEachMatch(topic, (filter, key, value) -> visited.add(filter + " " + key + " " + value));
            expected.sort(null);
            visited.sort(null);
            assertEquals(expected, visited, "topic " + topic);
        }
    }

    @Property(tries = 500)  // half the default, to keep the module's test run short
    void nodesAreTheLevelPrefixesOfLiveFilters(@ForAll @Size(max = 40) List<@From("operations") Operation> operations) {
        var trie = new SubscriptionTrie<String, Integer>();
        var reference = apply(operations, trie);
        var liveFilters = new HashSet<String>();
        reference.keySet().forEach(subscription -> liveFilters.add(subscription.filter()));
        assertEquals(1 + TopicArbitraries.levelPrefixes(liveFilters), trie.nodeCount());
    }

    @Property(tries = 500)  // half the default, to keep the module's test run short
    void removingEverySubscriptionLeavesOnlyTheRoot(@ForAll @Size(max = 40) List<@From("operations") Operation> operations) {
        var trie = new SubscriptionTrie<String, Integer>();
        var reference = apply(operations, trie);
        reference.forEach((subscription, value) -> assertEquals(value, trie.remove(subscription.filter(), subscription.key())));
        assertEquals(0, trie.size());
        assertEquals(1, trie.nodeCount());
    }
}
