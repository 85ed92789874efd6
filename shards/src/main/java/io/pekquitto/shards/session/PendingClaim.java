package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.Successor;

/**
 * A CONNECT waiting for its session: the home has been asked, the session (or word that there is
 * none) has not arrived yet. Its connection is null once it has closed or been taken over; the claim
 * still receives the session, which then stays offline here or goes on to {@code next}.
 */
final class PendingClaim<C> {
    final String clientId;
    final long token;
    final boolean cleanStart;
    final long sessionExpiryInterval;
    /** The connection's will, or null. */
    final DelayedWill will;
    C connection;
    Successor next;
    /** The only holder's token this claim takes the session from, or SessionTransfer.ANY_HOLDER. */
    long from = SessionTransfer.ANY_HOLDER;

    PendingClaim(String clientId, long token, C connection, boolean cleanStart, long sessionExpiryInterval, DelayedWill will) {
        this.clientId = clientId;
        this.token = token;
        this.connection = connection;
        this.cleanStart = cleanStart;
        this.sessionExpiryInterval = sessionExpiryInterval;
        this.will = will;
    }
}
