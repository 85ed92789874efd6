package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.util.HashMap;
import java.util.Map;

/**
 * A session this shard holds, under the token of the claim that brought it here. Its connection, if
 * any, holds the {@link Session} while attached; offline, the shard holds it and queues into it.
 * {@code generation} moves on with every attach and detach, so that a timer started before is stale.
 */
final class OwnedSession<C> {
    final String clientId;
    long token;
    /** Null until its first subscription: an idle client's session may never have one, and an empty map costs 48 bytes. */
    private Map<String, SubscriptionEntry> subscriptions;
    /** Held here; while attached, its connection uses it too (on the same thread). */
    Session session;
    C connection;
    /** The connection's will, or null: a keeper on another node holds it too (HeldWills). */
    DelayedWill will;
    /** The connection waits for its peers' barrier before it gets the session. */
    boolean attaching;
    /** The expiry interval the attaching connection asked for, in force once it has the session. */
    long attachingExpiry;
    long sessionExpiryInterval;
    long expiresAt;
    /** When it last went offline (the broker's nanosecond clock), for the journal. */
    long offlineSince;
    PendingWill pendingWill;
    long generation;
    /** The claim the session goes to once the connection has let it go. */
    Successor next;

    OwnedSession(String clientId, long token, Session session) {
        this.clientId = clientId;
        this.token = token;
        this.session = session;
    }

    /** Its subscriptions, to read (empty and shared while it has none). */
    Map<String, SubscriptionEntry> subscriptions() {
        return subscriptions == null ? Map.of() : subscriptions;
    }

    /** Its subscriptions, to change in place. */
    Map<String, SubscriptionEntry> changeableSubscriptions() {
        if (subscriptions == null) subscriptions = new HashMap<>();
        return subscriptions;
    }

    boolean isAttached() {
        return connection != null && !attaching;
    }
}
