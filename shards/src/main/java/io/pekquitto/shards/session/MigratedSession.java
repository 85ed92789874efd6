package io.pekquitto.shards.session;

import java.util.Map;
import java.util.Optional;

/**
 * A session on its way to the claim that takes it over, with everything a shard holds of it: the
 * delivery state, the subscriptions, the expiry it had and a will waiting out its delay.
 * {@code indexed} is true when it moves within one shard: its subscriptions stay in that shard's
 * indexes, so nothing is announced or routed differently while it moves. It never leaves its node:
 * a session for another node goes as its {@link PortableSession}.
 */
public record MigratedSession(Session session, Map<String, SubscriptionEntry> subscriptions, long sessionExpiryInterval,
                              long expiresAt, Optional<PendingWill> will, boolean indexed) implements MovingSession {
    public MigratedSession {
        subscriptions = Map.copyOf(subscriptions);
    }

    @Override
    public String clientId() {
        return session.clientId();
    }

    /** A session read back from the store, offline since it was, expiring as its interval says from then. */
    static MigratedSession recovered(RecoveredSession stored) {
        return new MigratedSession(stored.session(), stored.subscriptions(), stored.expiryInterval(),
                expiresAt(stored.offlineSince(), stored.expiryInterval()), stored.will(), false);
    }

    /** When a session offline since {@code since} (the broker's nanosecond clock) expires; never: {@link Long#MAX_VALUE}. */
    static long expiresAt(long since, long sessionExpiryInterval) {
        return sessionExpiryInterval == Session.NEVER_EXPIRES ? Long.MAX_VALUE : since + sessionExpiryInterval * 1_000_000_000L;
    }
}
