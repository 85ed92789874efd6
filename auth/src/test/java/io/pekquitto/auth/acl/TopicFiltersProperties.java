package io.pekquitto.auth.acl;

import io.pekquitto.protocol.TopicFilter;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Assertions;

/**
 * {@link TopicFilters} against their definitions, by brute force over every topic of up to five levels
 * drawn from a small alphabet (with a '$' level, an empty level, and a level no filter names).
 */
class TopicFiltersProperties {
    private static final List<String> LEVELS = List.of("a", "b", "$x", "");
    private static final List<String> UNIVERSE = topics();

    private static List<String> topics() {
        var alphabet = new ArrayList<>(LEVELS);
        alphabet.add("c");
        var all = new ArrayList<String>();
        var current = List.of("");
        for (int length = 1; length <= 5; length++) {
            var next = new ArrayList<String>();
            for (var prefix : current) {
                for (var level : alphabet) next.add(length == 1 ? level : prefix + "/" + level);
            }
            all.addAll(next);
            current = next;
        }
        all.remove("");  // not a topic name: at least one character
        return all;
    }

    @Provide
    Arbitrary<String> filters() {
        var level = Arbitraries.of("a", "b", "$x", "", "+", "+", "a");
        return Combinators.combine(level.list().ofMinSize(0).ofMaxSize(3), Arbitraries.of(true, false))
                .as((levels, hash) -> {
                    var all = new ArrayList<>(levels);
                    if (hash || all.isEmpty()) all.add("#");
                    return String.join("/", all);
                })
                .filter(TopicFilter::isValid);
    }

    @Property(tries = 400)
    void coversMeansEveryTopicOfTheSpecificIsInTheGeneral(@ForAll("filters") String general, @ForAll("filters") String specific) {
        boolean expected = UNIVERSE.stream()
                .filter(topic -> TopicFilter.matches(specific, topic))
                .allMatch(topic -> TopicFilter.matches(general, topic));
        Assertions.assertEquals(expected, TopicFilters.covers(general, specific), () -> "covers(" + general + ", " + specific + ")");
    }

    @Property(tries = 400)
    void overlapMeansSomeTopicIsInBoth(@ForAll("filters") String first, @ForAll("filters") String second) {
        boolean expected = UNIVERSE.stream().anyMatch(topic -> TopicFilter.matches(first, topic) && TopicFilter.matches(second, topic));
        Assertions.assertEquals(expected, TopicFilters.overlap(first, second), () -> "overlap(" + first + ", " + second + ")");
    }

    @Example
    void theCasesTheIssueNames() {
        Assertions.assertFalse(TopicFilters.covers("home/+", "home/#"));
        Assertions.assertFalse(TopicFilters.covers("a/x", "+/x"));
        Assertions.assertTrue(TopicFilters.covers("+/x", "a/x"));
        Assertions.assertTrue(TopicFilters.covers("home/#", "home"));
        Assertions.assertFalse(TopicFilters.covers("#", "$SYS/x"));
        Assertions.assertTrue(TopicFilters.overlap("home/secret", "+/secret"));
        Assertions.assertTrue(TopicFilters.overlap("a", "a/#"));
        Assertions.assertFalse(TopicFilters.overlap("+/x", "$SYS/x"));
    }
}
