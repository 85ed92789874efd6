package io.pekquitto.shards.session;

import io.pekquitto.protocol.ReasonCode;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the shard must do after the session rules decided: tell a connection, route a will, change its
 * subscription indexes, start a timer, or send a {@link SessionTransfer} to a shard (itself included).
 * The rules do no I/O; the shard performs these in order.
 *
 * @param <C> how the shard names a connection (its actor; anything in tests)
 */
public sealed interface SessionEffect<C> {

    /** The connection must close: another connection took its session over ([MQTT-3.1.4-3]). */
    record TakeOver<C>(C connection) implements SessionEffect<C> {}

    /**
     * A session arrived whose subscriptions shard {@code from} still routes: the peers must cut over (SessionCrossings);
     * {@code discarded}: Clean Start ended it here, so what {@code from} forwards of it is for no one.
     */
    record Crossed<C>(String clientId, int from, boolean discarded) implements SessionEffect<C> {}

    /** The connection gets the session: CONNACK with Session Present. */
    record Attach<C>(C connection, boolean sessionPresent, Session session) implements SessionEffect<C> {}

    /** The connection gets no session: CONNACK with this reason, and it closes (a new persistent session past the memory budget). */
    record Refuse<C>(C connection, ReasonCode reason, String why) implements SessionEffect<C> {}

    /** A migrated session's subscriptions were installed: attach once every peer knows them (a barrier). */
    record AwaitPeers<C>(String clientId, long token) implements SessionEffect<C> {}

    /** Publish a will, as if the client had published it. */
    record PublishWill<C>(String clientId, Message will) implements SessionEffect<C> {}

    /** A subscription enters this shard's indexes (a session moved here). */
    record Subscribe<C>(String clientId, String filter, SubscriptionEntry entry) implements SessionEffect<C> {}

    /** A subscription leaves this shard's indexes (its session ended or moved away). */
    record Unsubscribe<C>(String clientId, String filter) implements SessionEffect<C> {}

    /** A message of a shared subscription whose session ended undelivered: another member gets it (4.8.2). */
    record RedeliverShared<C>(String clientId, Message message) implements SessionEffect<C> {}

    /** Check the session's expiry after {@code delay}; stale if the generation has moved on. */
    record StartExpiryTimer<C>(String clientId, long generation, Duration delay) implements SessionEffect<C> {}

    /** Check the pending will after {@code delay}; stale if the generation has moved on. */
    record StartWillTimer<C>(String clientId, long generation, Duration delay) implements SessionEffect<C> {}

    /**
     * Tell a shard of this shard's ring change (round 1: adopted, round 2: settled, 0: neither) with the
     * records of holders that are its to keep as their client ids' home (HomeHandoff).
     */
    record Homes<C>(int shard, long epoch, int round, List<Map.Entry<String, SessionTransfer.Successor>> holders)
            implements SessionEffect<C> {}

    /** Send a session transfer message to a shard, possibly this one. */
    record Transfer<C>(int shard, SessionTransfer message) implements SessionEffect<C> {}
}
