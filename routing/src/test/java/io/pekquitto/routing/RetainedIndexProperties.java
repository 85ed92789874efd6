package io.pekquitto.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.TopicFilter;
import java.util.ArrayList;
import java.util.HashMap;
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

/** The retained index against a naive scan of a map with the reference matcher {@link TopicFilter#matches}. */
class RetainedIndexProperties {

    record Operation(boolean retain, String topic, int message) {}

    @Provide
    Arbitrary<Operation> operations() {
        return Combinators.combine(
                Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false))),
                TopicArbitraries.topics(),
                Arbitraries.integers().between(0, 2)).as(Operation::new);
    }

    @Provide
    Arbitrary<String> filters() {
        return TopicArbitraries.filters();
    }

    @Provide
    Arbitrary<String> topics() {
        return TopicArbitraries.topics();
    }

    /** Applies the operations to the index and to a map, checking each return value on the way. */
    private static Map<String, Integer> apply(List<Operation> operations, RetainedIndex<Integer> index) {
        var reference = new HashMap<String, Integer>();
        for (var operation : operations) {
            if (operation.retain()) {
                assertEquals(reference.put(operation.topic(), operation.message()), index.put(operation.topic(), operation.message()));
            } else {
                assertEquals(reference.remove(operation.topic()), index.remove(operation.topic()));
            }
            assertEquals(reference.size(), index.size());
        }
        return reference;
    }

    @Property
    void matchesAreWhatTheNaiveScanFindsEachOnce(
            @ForAll @Size(max = 40) List<@From("operations") Operation> operations,
            @ForAll @Size(min = 1, max = 10) List<@From("filters") String> filters) {
        var index = new RetainedIndex<Integer>();
        var reference = apply(operations, index);
        for (var filter : filters) {
            var expected = new ArrayList<String>();
            reference.forEach((topic, message) -> {
                if (TopicFilter.matches(filter, topic)) expected.add(topic + " " + message);
            });
            var found = new ArrayList<String>();
            index.forEachMatching(filter, (topic, message) -> found.add(topic + " " + message));
            expected.sort(null);
            found.sort(null);
            assertEquals(expected, found, "filter " + filter);
        }
    }

    @Property(tries = 500)  // half the default, to keep the module's test run short
    void getFindsWhatWasRetained(
            @ForAll @Size(max = 40) List<@From("operations") Operation> operations,
            @ForAll @Size(min = 1, max = 10) List<@From("topics") String> topics) {
        var index = new RetainedIndex<Integer>();
        var reference = apply(operations, index);
        for (var topic : topics) assertEquals(reference.get(topic), index.get(topic), "topic " + topic);
    }

    @Property(tries = 500)  // half the default, to keep the module's test run short
    void nodesAreTheLevelPrefixesOfLiveTopics(@ForAll @Size(max = 40) List<@From("operations") Operation> operations) {
        var index = new RetainedIndex<Integer>();
        var reference = apply(operations, index);
        assertEquals(1 + TopicArbitraries.levelPrefixes(reference.keySet()), index.nodeCount());
    }

    @Property(tries = 500)  // half the default, to keep the module's test run short
    void removingEveryMessageLeavesOnlyTheRoot(@ForAll @Size(max = 40) List<@From("operations") Operation> operations) {
        var index = new RetainedIndex<Integer>();
        var reference = apply(operations, index);
        reference.forEach((topic, message) -> assertEquals(message, index.remove(topic)));
        assertEquals(0, index.size());
        assertEquals(1, index.nodeCount());
    }
}
