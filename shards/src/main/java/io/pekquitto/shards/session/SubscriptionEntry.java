package io.pekquitto.shards.session;

import io.pekquitto.protocol.SubscriptionOptions;

/**
 * One client's subscription to one topic filter, as the shard's index stores it: the options the
 * client asked for, the QoS the broker granted in them, and its Subscription Identifier (0 for none).
 */
public record SubscriptionEntry(SubscriptionOptions options, int subscriptionIdentifier) {}
