package io.pekquitto.protocol;

import java.util.Objects;

/**
 * One Topic Filter with its options, as a SUBSCRIBE packet carries it (3.8.3). The filter is kept as
 * received text: whether it is a valid filter is answered per entry in SUBACK (0x8F in MQTT 5), not by
 * failing the whole packet, so the decoder checks only that it is well-formed UTF-8.
 */
public record Subscription(String topicFilter, SubscriptionOptions options) {
    public Subscription {
        Objects.requireNonNull(topicFilter, "topicFilter");
        Objects.requireNonNull(options, "options");
    }
}
