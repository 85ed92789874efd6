package io.pekquitto.routing;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/** Topics and filters over a small alphabet of levels, so that random ones often overlap. */
final class TopicArbitraries {
    private static final String[] TOPIC_LEVELS = {"", "$SYS", "$", "a", "b"};
    private static final String[] FILTER_LEVELS = {"", "$SYS", "$", "a", "b", "+", "#"};

    private TopicArbitraries() {}

    /** Valid Topic Names of one to four levels, empty levels included ("/", "a//b", "/a", "a/"). */
    static Arbitrary<String> topics() {
        return Arbitraries.of(TOPIC_LEVELS).list().ofMinSize(1).ofMaxSize(4)
                .map(levels -> String.join("/", levels))
                .filter(topic -> !topic.isEmpty());
    }

    /** Valid Topic Filters: up to five levels, '+' anywhere, '#' only last (a list is cut after its first '#'). */
    static Arbitrary<String> filters() {
        return Arbitraries.of(FILTER_LEVELS).list().ofMinSize(1).ofMaxSize(5)
                .map(levels -> {
                    int hash = levels.indexOf("#");
                    return String.join("/", hash < 0 ? levels : levels.subList(0, hash + 1));
                })
                .filter(filter -> !filter.isEmpty());
    }

    /** The distinct level prefixes of the texts: the nodes a trie of them needs besides its root. */
    static int levelPrefixes(Iterable<String> texts) {
        Set<List<String>> prefixes = new HashSet<>();
        for (var text : texts) {
            var levels = Arrays.asList(text.split("/", -1));
            for (int i = 1; i <= levels.size(); i++) prefixes.add(levels.subList(0, i));
        }
        return prefixes.size();
    }
}
