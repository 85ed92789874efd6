package io.pekquitto.ops.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bridge's {@code topic pattern [[[ out | in | both ] qos-level] local-prefix remote-prefix]} lines, with Mosquitto's
 * {@code ""} marker and its table of which empty patterns and prefixes go together (mosquitto.conf(5)).
 */
class BridgeTopicTest {
    @TempDir
    Path directory;

    private String convert(String topicLine) throws IOException {
        return Converting.convert(directory, "connection cloud", "address a", topicLine);
    }

    /** The topics of the one bridge, each as pattern, direction, qos, local-prefix, remote-prefix. */
    private List<Map<String, Object>> topics(String topicLine) throws IOException {
        var converted = convert(topicLine);
        return ConfigFactory.parseString(converted).getConfigList("bridges").get(0).getConfigList("topics").stream()
                .map(topic -> Map.<String, Object>of("pattern", topic.getString("pattern"), "direction", topic.getString("direction"),
                        "qos", topic.getInt("qos"), "local", topic.getString("local-prefix"), "remote", topic.getString("remote-prefix")))
                .toList();
    }

    private static Map<String, Object> topic(String pattern, String direction, int qos, String local, String remote) {
        return Map.of("pattern", pattern, "direction", direction, "qos", qos, "local", local, "remote", remote);
    }

    private void assertRefused(String topicLine, String why) throws IOException {
        var converted = convert(topicLine);
        assertTrue(converted.contains("# mosquitto.conf:3: " + topicLine + "\n#   "), () -> topicLine + " not named in:\n" + converted);
        assertTrue(converted.contains(why), () -> "'" + why + "' not said in:\n" + converted);
        assertEquals(List.of(), ConfigFactory.parseString(converted).getConfigList("bridges").get(0).getConfigList("topics"));
    }

    @Test
    void aPatternAloneGoesOutAtQosZero() throws IOException {
        assertEquals(List.of(topic("sensors/#", "out", 0, "", "")), topics("topic sensors/#"));
    }

    @Test
    void directionAndQosInAnyCaseOfTheDirection() throws IOException {
        assertEquals(List.of(topic("a/+", "in", 2, "", "")), topics("topic a/+ IN 2"));
        assertEquals(List.of(topic("#", "both", 1, "", "")), topics("topic # both 1"));
    }

    @Test
    void mosquittosPrefixTableEveryValidRow() throws IOException {
        assertEquals(List.of(topic("pattern", "out", 0, "L/", "R/")), topics("topic pattern out 0 L/ R/"));
        assertEquals(List.of(topic("pattern", "out", 0, "L/", "")), topics("topic pattern out 0 L/ \"\""));
        assertEquals(List.of(topic("pattern", "out", 0, "", "R/")), topics("topic pattern out 0 \"\" R/"));
        assertEquals(List.of(topic("pattern", "out", 0, "", "")), topics("topic pattern out 0 \"\" \"\""));
        assertEquals(List.of(topic("", "out", 0, "local", "remote")), topics("topic \"\" out 0 local remote"));
        assertEquals(List.of(topic("pattern", "in", 0, "L/", "")), topics("topic pattern in 0 L/"), "the remote prefix may be left off");
    }

    @Test
    void mosquittosPrefixTableEveryInvalidRow() throws IOException {
        for (var line : List.of("topic \"\" out 0 local \"\"", "topic \"\" out 0 \"\" remote", "topic \"\" out 0 \"\" \"\"", "topic \"\"")) {
            assertRefused(line, "an empty pattern maps one topic");
        }
    }

    @Test
    void aCommentEndsTheLine() throws IOException {
        assertEquals(List.of(topic("#", "out", 1, "", "")), topics("topic # out 1 # all of it"));
    }

    @Test
    void whatMosquittoRefusesIsNamedWithTheReason() throws IOException {
        assertRefused("topic a sideways", "sideways is not out, in or both");
        assertRefused("topic a out 3", "3 is not a QoS");
        assertRefused("topic a out 1 local/+/ remote/", "without + or #");
        assertRefused("topic", "needs a pattern");
    }
}
