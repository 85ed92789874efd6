package io.pekquitto.shards.connection;

/**
 * Topic aliases a client set towards the broker (3.3.2.3.4): alias 1..maximum to a topic name, for
 * this network connection only ([MQTT-3.3.2-7]). The table has at most {@code maximum} entries.
 */
final class InboundTopicAliases {
    private final int maximum;
    /** Allocated at the first alias: most clients never set one, and an idle connection pays for it. */
    private String[] topics;

    InboundTopicAliases(int maximum) {
        this.maximum = maximum;
    }

    /** Whether the alias is in 1..maximum ([MQTT-3.3.2-8], [MQTT-3.3.2-9]). */
    boolean isInRange(int alias) {
        return alias >= 1 && alias <= maximum;
    }

    void set(int alias, String topic) {
        if (topics == null) topics = new String[maximum + 1];
        topics[alias] = topic;
    }

    /** The topic for an alias, or null if the client never set it. */
    String resolve(int alias) {
        return topics == null ? null : topics[alias];
    }
}
