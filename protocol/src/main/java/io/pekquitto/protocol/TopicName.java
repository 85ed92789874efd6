package io.pekquitto.protocol;

/**
 * Rules for Topic Names, the concrete topics PUBLISH carries (4.7). Names are kept as strings on the
 * hot path; this class says whether one is valid.
 */
public final class TopicName {
    private TopicName() {}

    /**
     * A valid Topic Name is at least one character long ([MQTT-4.7.3-1]) and holds no wildcard
     * ([MQTT-3.3.2-2], [MQTT-4.7.1-1]). The UTF-8 rules (no U+0000, no surrogates) are the decoder's.
     */
    public static boolean isValid(String topic) {
        if (topic.isEmpty()) return false;
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            if (c == '+' || c == '#' || c == 0) return false;
        }
        return true;
    }

    /**
     * {@code $SYS} and what is under it: the broker's own topics, which clients read and never publish
     * (4.7.2: "$SYS/ has been widely adopted as a prefix to topics that contain Server-specific
     * information"; Mosquitto and HiveMQ refuse client publishes there).
     */
    public static boolean isBrokers(String topic) {
        return topic.startsWith("$SYS") && (topic.length() == 4 || topic.charAt(4) == '/');
    }

    /** Topics beginning with '$' are not matched by filters starting with a wildcard ([MQTT-4.7.2-1]). */
    public static boolean isSystem(String topic) {
        return !topic.isEmpty() && topic.charAt(0) == '$';
    }
}
