package io.pekquitto.shards.session;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongPredicate;

/**
 * Where the changes of persistent sessions are written down (the shard's batch for the store): each
 * call records one change, and the shard writes a turn's changes together. The session rules call it;
 * {@link #NONE} keeps nothing (no store, or a session that ends with its connection).
 *
 * <p>A message a session must deliver is recorded once under the session's sequence number for it,
 * and stays until it is acknowledged, dropped or taken away: so a message stored before the publisher
 * was acknowledged is delivered after a crash, however far it had got.
 *
 * <p>A session keeps at most {@link #queuedInMemory()} of its queued messages in the heap; the rest
 * wait in the journal alone, and it reads them back with {@link #readQueued} as its queue drains.
 */
public interface SessionJournal {

    /** Nothing is kept. */
    SessionJournal NONE = new SessionJournal() {};

    /** Whether anything is kept: a session journals only then. */
    default boolean isKept() { return false; }

    /** A queued message read back from the journal under its sequence number; it may have expired meanwhile. */
    record Stored(long seq, Message message) {}

    /** How many of a session's queued messages stay in memory; those past them wait in the journal alone. */
    default int queuedInMemory() { return Integer.MAX_VALUE; }

    /**
     * Whether queued messages can be read back now: not while a write of the shard failed (they are read
     * back once the store writes again, at a later drain). A slow write is no reason to wait: a read sees
     * what was journaled, written or not.
     */
    default boolean readable() { return true; }

    /**
     * Reads back up to {@code count} of the client's messages, in sequence order from {@code fromSeq} on,
     * passing over those the session holds in memory ({@code inMemory}). Everything journaled before is seen.
     */
    default List<Stored> readQueued(String clientId, long fromSeq, int count, LongPredicate inMemory) { return List.of(); }

    /** A message for the client, under sequence number {@code seq}: QoS 1/2, or QoS 0 queued for an offline client. */
    default void message(String clientId, long seq, Message message) {}

    /** Message {@code seq} was sent as {@code packetId}; {@code released}: its PUBREC came and PUBREL went out. */
    default void inFlight(String clientId, long seq, int packetId, boolean released) {}

    /**
     * Message {@code seq} is done: acknowledged, dropped, expired or given to another member;
     * {@code inFlightToo}: it was a QoS 2 message whose packet identifier was journaled too.
     */
    default void removed(String clientId, long seq, boolean inFlightToo) {}

    /**
     * The persistent session of {@code clientId} as the journal holds it, rebuilt with {@code newSession},
     * when the broker lost it (a shard restarted after a failure); what expired meanwhile is not in it.
     * Everything journaled before is seen.
     */
    default Optional<RecoveredSession> storedSession(String clientId, Function<String, Session> newSession) {
        return Optional.empty();
    }

    /** Every message from sequence number {@code fromSeq} up to {@code toSeq} (exclusive) is done: the session was emptied. */
    default void removedFrom(String clientId, long fromSeq, long toSeq) {}

    /** An incoming QoS 2 packet identifier now awaits PUBREL ({@code awaiting}), or no longer does. */
    default void awaitingPubRel(String clientId, int packetId, boolean awaiting) {}

    /**
     * The session itself: its expiry interval, its subscriptions, and since when it has been offline
     * (the broker's nanosecond clock), or {@link #CONNECTED}.
     */
    default void session(String clientId, long expiryInterval, Map<String, SubscriptionEntry> subscriptions,
                         long offlineSince) {}

    /** A will waiting out its delay, or none any more ({@code will} null). */
    default void will(String clientId, PendingWill will) {}

    /** The session ended: everything kept of it goes. */
    default void ended(String clientId) {}

    /** {@link #session}'s {@code offlineSince} for a session attached to a connection. */
    long CONNECTED = Long.MIN_VALUE;
}
