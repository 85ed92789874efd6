package io.pekquitto.shards.session;

import java.util.Map;

/**
 * Where the changes of persistent sessions are written down (the shard's batch for the store): each
 * call records one change, and the shard writes a turn's changes together. The session rules call it;
 * {@link #NONE} keeps nothing (no store, or a session that ends with its connection).
 *
 * <p>A message a session must deliver is recorded once under the session's sequence number for it,
 * and stays until it is acknowledged, dropped or taken away: so a message stored before the publisher
 * was acknowledged is delivered after a crash, however far it had got.
 */
public interface SessionJournal {

    /** Nothing is kept. */
    SessionJournal NONE = new SessionJournal() {};

    /** Whether anything is kept: a session journals only then. */
    default boolean isKept() { return false; }

    /** A QoS 1/2 message for the client, under sequence number {@code seq}. */
    default void message(String clientId, long seq, Message message) {}

    /** Message {@code seq} was sent as {@code packetId}; {@code released}: its PUBREC came and PUBREL went out. */
    default void inFlight(String clientId, long seq, int packetId, boolean released) {}

    /**
     * Message {@code seq} is done: acknowledged, dropped, expired or given to another member;
     * {@code inFlightToo}: it was a QoS 2 message whose packet identifier was journaled too.
     */
    default void removed(String clientId, long seq, boolean inFlightToo) {}

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
