package io.pekquitto.shards.session;

import io.pekquitto.protocol.SubscriptionOptions;

/**
 * A valid topic filter from a SUBSCRIBE, with its options (QoS already capped at {@code max-qos}) and the
 * packet's Subscription Identifier (0 for none).
 */
public record SubscribeRequest(String topicFilter, SubscriptionOptions options, int subscriptionIdentifier) {}
