package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Topic aliases the broker sets towards an MQTT 5 client (3.3.2.3.4), within the client's Topic Alias
 * Maximum ([MQTT-3.3.2-9]). The policy is simple and bounded: the first {@code maximum} distinct topics
 * sent get an alias, established by sending the topic with it once; later PUBLISHes on those topics
 * carry the alias and an empty topic. Other topics go out in full. Aliases live for this network
 * connection only ([MQTT-3.3.2-7]).
 */
final class OutboundTopicAliases {
    /** A client that takes no aliases (a Topic Alias Maximum of 0, or MQTT 3.1.1): one for all, as idle ones are most. */
    private static final OutboundTopicAliases NONE = new OutboundTopicAliases(0, publish -> true);

    private final int maximum;
    /** Whether a PUBLISH fits the client's Maximum Packet Size. */
    private final Predicate<Publish> fits;
    /** Empty and shared until the first alias: most clients never get one. */
    private Map<String, Integer> aliases = Map.of();

    OutboundTopicAliases(int maximum, Predicate<Publish> fits) {
        this.maximum = maximum;
        this.fits = fits;
    }

    /** Aliases for a client that takes up to {@code maximum}; {@code fits} tells whether a PUBLISH fits it. */
    static OutboundTopicAliases upTo(int maximum, Predicate<Publish> fits) {
        return maximum == 0 ? NONE : new OutboundTopicAliases(maximum, fits);
    }

    /**
     * The PUBLISH to send: unchanged, establishing an alias, or using one. An alias is established only
     * by a PUBLISH that still fits (the client's Maximum Packet Size): the Topic Alias property makes it
     * larger than the plain one.
     */
    Publish apply(Publish publish) {
        if (maximum == 0) return publish;
        var alias = aliases.get(publish.topic());
        if (alias != null) {
            return new Publish("", publish.payload(), publish.qos(), publish.retain(), publish.dup(),
                    publish.packetId(), withAlias(publish.properties(), alias));
        }
        if (aliases.size() >= maximum) return publish;
        int newAlias = aliases.size() + 1;
        var establishing = new Publish(publish.topic(), publish.payload(), publish.qos(), publish.retain(), publish.dup(),
                publish.packetId(), withAlias(publish.properties(), newAlias));
        if (!fits.test(establishing)) return publish;  // a later, smaller PUBLISH on this topic may establish it
        if (aliases.isEmpty()) aliases = new HashMap<>();
        aliases.put(publish.topic(), newAlias);
        return establishing;
    }

    private static Properties withAlias(Properties properties, int alias) {
        return properties.toBuilder().set(PropertyId.TOPIC_ALIAS, alias).build();
    }
}
