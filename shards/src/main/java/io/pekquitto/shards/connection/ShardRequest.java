package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.DelayedWill;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscribeRequest;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link Connection} asks of its shard: the whole protocol from a connection to the shard that
 * owns it. The shard answers with {@link Connection.Command}s.
 */
public sealed interface ShardRequest extends ShardMessage {

    /**
     * A CONNECT was accepted: claim the client's session for this connection; the answer is Attached or TakenOver.
     * {@code will} is the connection's will as it would be published now: in a cluster a keeper on another node holds it.
     */
    record Attach(String clientId, boolean cleanStart, long sessionExpiryInterval,
                  ConnectionRef connection, Optional<DelayedWill> will) implements ShardRequest {}

    /** The connection closed before its CONNECT was whole ({@link PreConnect}): it had no actor, and is gone. */
    record EndedBeforeConnect(ConnectionRef connection) implements ShardRequest {}

    /** The connection has parked: its actor is gone, and the shard now watches its Keep Alive. */
    record Parked(ConnectionRef connection) implements ShardRequest {}

    /**
     * Route a published message to every matching subscription, and retain it if asked; with a store,
     * {@code awaitingAck} is the connection whose acknowledgement of it waits for the write (the answer
     * is AcknowledgementsWritten), null when none waits; {@code awaitingPubRel}, if not 0, is the
     * packet identifier of the publisher's persistent session that now awaits PUBREL, journaled in the
     * same batch as the message (so a crash never keeps one without the other).
     */
    record Route(String publisherId, Message message, ConnectionRef awaitingAck, int awaitingPubRel) implements ShardRequest {
        /** The publisher id of what the broker publishes itself ($SYS figures, a bridge's state): no client id starts with '$'. */
        public static final String BROKER = "$SYS";

        public Route(String publisherId, Message message) {
            this(publisherId, message, null, 0);
        }
    }

    /** An acknowledgement that waits for what the connection wrote in this turn (a PUBCOMP); answered like a Route. */
    record AwaitWrite(ConnectionRef connection) implements ShardRequest {}

    /** A checked SUBSCRIBE: apply the requests; the answer is Subscribed, with the retained messages to send. */
    record Subscribe(String clientId, int packetId, List<ReasonCode> reasons, List<SubscribeRequest> requests,
                     ConnectionRef replyTo) implements ShardRequest {}

    /** An UNSUBSCRIBE; the answer is Unsubscribed. */
    record Unsubscribe(String clientId, int packetId, List<String> topicFilters,
                       ConnectionRef replyTo) implements ShardRequest {}

    /** The connection's routes so far are done: it may read its socket again once the shard lets it (back-pressure). */
    record ResumeReading(Transport transport) implements ShardRequest {}

    /** The connection's queue fills faster than its client acknowledges: slow publishers down (policy throttle). */
    record Congested(ConnectionRef connection) implements ShardRequest {}

    /** The connection's congestion is over (drained, or given up after a timeout). */
    record Relieved(ConnectionRef connection) implements ShardRequest {}

    /** How soon the client can take shared subscriptions' work changed ({@link DeliveryWindow#availability}). */
    record Available(ConnectionRef connection, Availability availability) implements ShardRequest {}

    /** The connection ended: the session goes back to the shard, with a will that waits out its delay. */
    record Release(String clientId, ConnectionRef connection, Session session,
                   long sessionExpiryInterval, Optional<DelayedWill> will) implements ShardRequest {}

    /** A delivery that reached the connection after it released its session: to be delivered again. */
    record Bounce(ConnectionRef connection, Message message) implements ShardRequest {}

    /** The released connection has bounced everything the shard sent it: held deliveries may go on. */
    record Drained(ConnectionRef connection) implements ShardRequest {}
}
