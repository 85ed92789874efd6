package io.pekquitto.shards.session;

import java.util.Map;
import java.util.Optional;

/**
 * A session on its way to the claim that takes it over, with everything a shard holds of it: the
 * delivery state, the subscriptions, the expiry it had and a will waiting out its delay.
 * {@code indexed} is true when it moves within one shard: its subscriptions stay in that shard's
 * indexes, so nothing is announced or routed differently while it moves.
 */
public record MigratedSession(Session session, Map<String, SubscriptionEntry> subscriptions, long sessionExpiryInterval,
                              long expiresAt, Optional<PendingWill> will, boolean indexed) {
    public MigratedSession {
        subscriptions = Map.copyOf(subscriptions);
    }
}
