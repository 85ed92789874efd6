package io.pekquitto.shards.session;

/**
 * What the sessions one shard holds amount to at one moment, counted when asked (every
 * {@code sys-interval}, or a metrics scrape) rather than kept up to date on every change.
 *
 * @param sessions       sessions held, attached or not
 * @param offline        sessions without a connection
 * @param subscriptions  their subscriptions
 * @param queued         messages queued or in flight for them (in the heap or in the store)
 * @param expired        sessions ended by their expiry interval since the shard started
 * @param droppedOffline messages an offline session could not queue since the shard started
 */
public record SessionCensus(int sessions, int offline, long subscriptions, long queued, long expired, long droppedOffline) {

    static SessionCensus of(Iterable<? extends OwnedSession<?>> held, long expired, long droppedOffline) {
        int sessions = 0;
        int offline = 0;
        long subscriptions = 0;
        long queued = 0;
        for (var owned : held) {
            sessions++;
            if (owned.connection == null) offline++;
            subscriptions += owned.subscriptions().size();
            queued += owned.session.queuedCount() + owned.session.inflightCount();
        }
        return new SessionCensus(sessions, offline, subscriptions, queued, expired, droppedOffline);
    }
}
