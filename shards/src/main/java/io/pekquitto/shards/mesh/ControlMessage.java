package io.pekquitto.shards.mesh;

import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.session.SessionTransfer.Successor;
import io.pekquitto.shards.session.SessionTransfer;
import java.util.List;
import java.util.Map;

/**
 * The control plane between shards (docs/shards-and-mesh.md, The control plane): low volume, never dropped,
 * never reordered. Each shard sends these to a peer with a plain local {@code tell}, which in one JVM is
 * exactly a reliable FIFO outbox per shard pair: Pekko delivers local messages in send order per
 * sender-receiver pair, the receiving mailbox is unbounded (enqueueing never blocks or drops), and a shard
 * restarted by its supervisor keeps its mailbox and its ActorRef. What a restart loses is the shard's own
 * state; {@link Hello} and {@link Resync} rebuild the peers' view of it. Pekko's {@code actor.typed.delivery}
 * would add a confirmation round trip per message and a resend after a consumer restart, which here would
 * replay the very message that made the shard fail.
 */
public sealed interface ControlMessage {

    /** The sender has (re)started with empty state: forget what it announced, and resynchronise it. */
    record Hello() implements ControlMessage {}

    /** What a peer tells a (re)started shard: its routes, and the sessions it holds whose home is that shard. */
    record Resync(List<RouteChange> routes, List<Map.Entry<String, Successor>> heldSessions) implements ControlMessage {}

    /** A change of the sender's subscriptions (interest in a filter, a shared member). */
    record Routes(RouteChange change) implements ControlMessage {}

    /**
     * A step of the sender's change of ring of homes (round 1: it adopted ring {@code epoch}; 2: it settled it;
     * 0: neither), with records of holders whose client ids' home the receiver is on the sender's ring.
     */
    record Homes(long epoch, int round, List<Map.Entry<String, Successor>> holders) implements ControlMessage {}

    /**
     * The client's session arrived at the sender from shard {@code from}, and the sender announced its interest: the
     * receiver cuts its stream for the client (SessionCrossings), with a {@code Forwarded.Cut} to both shards.
     */
    record Moved(String clientId, int from) implements ControlMessage {}

    /** A step of a session's move to the connection that claims it. */
    record Sessions(SessionTransfer transfer) implements ControlMessage {}

    /** Answer {@link SyncAck} once everything sent before this has been applied (FIFO makes it a barrier). */
    record Sync(long token) implements ControlMessage {}

    record SyncAck(long token) implements ControlMessage {}
}
