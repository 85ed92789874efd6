package io.pekquitto.shards.session;

import io.pekquitto.shards.session.QueuedMessages.Queued;
import java.util.ArrayDeque;
import java.util.Set;

/**
 * How a persistent session a store keeps is journaled ({@link Session}): the holding shard's
 * {@link SessionJournal}, the session's next sequence number, and the messages the shard journaled for
 * the attached connection that its window has not taken yet (by identity: the very delivery).
 */
final class KeptJournal {
    SessionJournal journal;
    long nextSeq = 1;
    /** Journaled by the shard for the attached connection, not yet taken by its window; null until used. */
    private ArrayDeque<Queued> routed;

    KeptJournal(SessionJournal journal) {
        this.journal = journal;
    }

    /** Journals the message under the next sequence number, which it returns. */
    long journal(String clientId, Message message) {
        long seq = nextSeq++;
        journal.message(clientId, seq, message);
        return seq;
    }

    /** Journals a delivery routed to the connection, once however often it comes back. */
    void route(String clientId, Message message) {
        if (routed != null) {
            for (var waiting : routed) if (waiting.message() == message) return;
        } else {
            routed = new ArrayDeque<>(2);
        }
        routed.add(new Queued(message, journal(clientId, message)));
    }

    /** The sequence number this very delivery was routed under (it is taken), or 0. */
    long take(Message message) {
        if (routed == null) return 0;
        for (var it = routed.iterator(); it.hasNext(); ) {
            var waiting = it.next();
            if (waiting.message() == message) {  // by identity: the very delivery the shard routed
                it.remove();
                return waiting.seq();
            }
        }
        return 0;
    }

    /** Adds the sequence numbers of the routed deliveries: the journal holds them, the queue does not. */
    void addRouted(Set<Long> seqs) {
        if (routed != null) for (var waiting : routed) seqs.add(waiting.seq());
    }

    /** Takes every routed delivery out of the journal (the session's state is lost). */
    void forgetRouted(String clientId) {
        if (routed != null) for (var waiting : routed) journal.removed(clientId, waiting.seq(), false);
    }

    /** How many queued messages stay in the heap. */
    int window() {
        return journal.queuedInMemory();
    }
}
