package io.pekquitto.shards.session;

import java.util.Map;
import java.util.Optional;

/**
 * A persistent session as the store gave it back at start: its delivery state, subscriptions, expiry
 * interval, since when it has been offline (the broker's nanosecond clock, the time it spent stored
 * included), and a will waiting out its delay.
 */
public record RecoveredSession(String clientId, Session session, Map<String, SubscriptionEntry> subscriptions,
                               long expiryInterval, long offlineSince, Optional<PendingWill> will) {}
