package io.pekquitto.shards.session;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;

/**
 * A session arrives from another node ({@link PortableSession}): the receiving shard rebuilds it as
 * recovery rebuilds one from the store ({@link Session#restore}, {@link Session#restoreAwaitingPubRel}),
 * each message journaled first under this shard's own sequence numbers, so that the store holds what a
 * recovery reads back and the heap holds what the memory budget has room for (the rest waits in the
 * store alone).
 */
public final class SessionImport {
    private SessionImport() {}

    /**
     * The session of {@code portable} on the shard whose journal is {@code journal} and budget {@code memory},
     * arriving at {@code now}: not in any index yet. A persistent session (a store keeps it) is journaled
     * whole in the shard's batch, and whatever an earlier stay left of it in this store goes first.
     */
    public static MigratedSession rebuild(PortableSession portable, SessionJournal journal, MemoryBudget memory, long now) {
        var clientId = portable.clientId();
        var limits = portable.limits();
        var session = new Session(clientId, limits, memory);
        long expiresAt = portable.expiresIn().map(left -> now + left.toNanos()).orElse(Long.MAX_VALUE);
        var will = portable.will().map(w -> new PendingWill(w.message(), now - w.endedAgo().toNanos(), now + w.dueIn().toNanos()));
        if (journal.isKept()) {
            session.journalTo(journal);
            journal.ended(clientId);
            long offlineSince = expiresAt == Long.MAX_VALUE ? now : expiresAt - portable.sessionExpiryInterval() * 1_000_000_000L;
            journal.session(clientId, portable.sessionExpiryInterval(), portable.subscriptions(), offlineSince);
            will.ifPresent(pending -> journal.will(clientId, pending));
        }
        long seq = 0;
        for (var flight : portable.inFlight()) {
            var message = flight.message();
            long kept = journal(journal, clientId, ++seq, message);
            if (kept != 0 && message.qos() == QoS.EXACTLY_ONCE) journal.inFlight(clientId, kept, flight.packetId(), flight.released());
            session.restore(kept, message, flight.packetId(), flight.released());
        }
        for (var message : portable.queued()) session.restore(journal(journal, clientId, ++seq, message), message, 0, false);
        for (int packetId : portable.awaitingPubRel()) {
            if (journal.isKept()) journal.awaitingPubRel(clientId, packetId, true);
            session.restoreAwaitingPubRel(packetId);
        }
        session.droppedMessages = portable.droppedMessages();
        return new MigratedSession(session, portable.subscriptions(), portable.sessionExpiryInterval(), expiresAt,
                will, false);
    }

    /** The message under {@code seq} in the journal, which it returns; 0 when nothing is kept. */
    private static long journal(SessionJournal journal, String clientId, long seq, Message message) {
        if (!journal.isKept()) return 0;
        journal.message(clientId, seq, message);
        return seq;
    }
}
