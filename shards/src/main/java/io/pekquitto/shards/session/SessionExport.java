package io.pekquitto.shards.session;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;

/**
 * A session leaves its node: the shard that hands it over turns it into its {@link PortableSession},
 * and ends it in its own store, since the receiving node's store keeps it from now on.
 */
public final class SessionExport {
    private SessionExport() {}

    /**
     * The portable form of {@code moving} at {@code now}, on the shard whose journal is {@code journal}.
     * The messages that wait in the store alone are read back through the journal first (what it has not
     * written yet included); while the store fails they cannot be, and are dropped and counted. Then the
     * session ends in the journal, as it would when it ends: its records go with the shard's batch.
     * Deliveries journaled for its last connection and not yet taken by it are not in it: they come back
     * to this shard and follow the session to its new one ({@link ReleaseDraining}).
     */
    public static PortableSession export(MigratedSession moving, SessionJournal journal, long now) {
        var session = moving.session();
        var clientId = session.clientId();
        // A session arriving from a shard of this node still names that shard's journal: this one reads now.
        if (session.journal().isKept()) session.journalTo(journal);
        if (session.journal().isKept() && journal.readable()) session.readSpilled(session.queue.spilled());
        session.droppedMessages += session.queue.spilled();  // what could not be read back (the store fails)
        var inFlight = new ArrayList<PortableSession.InFlight>(session.inflightCount());
        session.inflight.byPacketId().forEach((packetId, outgoing) ->
                inFlight.add(new PortableSession.InFlight(packetId, outgoing.message(), outgoing.released())));
        var queued = new ArrayList<Message>(session.queuedCount());
        for (var waiting : session.queue.inMemory()) queued.add(waiting.message());
        var limits = session.limits;
        var expiresIn = moving.sessionExpiryInterval() == Session.NEVER_EXPIRES
                ? Optional.<Duration>empty() : Optional.of(Duration.ofNanos(moving.expiresAt() - now));
        var will = moving.will().map(pending -> new PortableSession.Will(pending.message(),
                Duration.ofNanos(now - pending.endedAt()), Duration.ofNanos(pending.publishAt() - now)));
        var portable = new PortableSession(clientId, limits, inFlight, queued, session.awaitingPubRel,
                session.droppedMessages, moving.subscriptions(), moving.sessionExpiryInterval(), expiresIn, will);
        if (session.journal().isKept()) journal.ended(clientId);
        session.journalTo(SessionJournal.NONE);
        session.leaveMemory();
        return portable;
    }
}
