package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.util.List;
import java.util.Locale;

/**
 * A bridge's {@code topic pattern [[[ out | in | both ] qos-level] local-prefix remote-prefix]} line as an entry of
 * pekquitto's {@code topics}, refused where Mosquitto refuses it (mosquitto.conf(5) and its bridge__add_topic).
 */
final class BridgeTopic {
    /** Mosquitto's marker for an empty pattern or prefix. */
    private static final String EMPTY = "\"\"";

    private BridgeTopic() {}

    /** The entry for {@code line}, or null after a note in {@code conversion} that says why there is none. */
    static String convert(Line line, MosquittoConversion conversion) {
        var words = words(line.arguments());
        if (words.isEmpty()) {
            conversion.note(line, "a topic line needs a pattern: left out");
            return null;
        }
        var pattern = empty(words.get(0));
        var direction = "out";
        if (words.size() > 1) {
            direction = words.get(1).toLowerCase(Locale.ROOT);
            if (!List.of("out", "in", "both").contains(direction)) {
                conversion.note(line, words.get(1) + " is not out, in or both: left out");
                return null;
            }
        }
        int qos = 0;
        if (words.size() > 2) {
            if (!words.get(2).matches("[012]")) {
                conversion.note(line, words.get(2) + " is not a QoS (0, 1 or 2): left out");
                return null;
            }
            qos = Integer.parseInt(words.get(2));
        }
        var localPrefix = words.size() > 3 ? empty(words.get(3)) : "";
        var remotePrefix = words.size() > 4 ? empty(words.get(4)) : "";
        for (var prefix : List.of(localPrefix, remotePrefix)) {
            if (prefix.contains("+") || prefix.contains("#")) {
                conversion.note(line, "a prefix is a topic, without + or #: Mosquitto refuses " + prefix + " too; left out");
                return null;
            }
        }
        if (pattern.isEmpty() && (localPrefix.isEmpty() || remotePrefix.isEmpty())) {
            conversion.note(line, "an empty pattern maps one topic, local-prefix to remote-prefix, and needs both "
                    + "(Mosquitto refuses it too): left out");
            return null;
        }
        return "{ pattern = " + Hocon.quote(pattern) + ", direction = " + direction + ", qos = " + qos
                + ", local-prefix = " + Hocon.quote(localPrefix) + ", remote-prefix = " + Hocon.quote(remotePrefix) + " }";
    }

    /** The line's words up to a comment: after the pattern, a word starting with # starts one, as Mosquitto reads it. */
    private static List<String> words(List<String> arguments) {
        for (int i = 1; i < arguments.size(); i++) {
            if (arguments.get(i).startsWith("#")) return arguments.subList(0, i);
        }
        return arguments;
    }

    private static String empty(String word) {
        return word.equals(EMPTY) ? "" : word;
    }
}
