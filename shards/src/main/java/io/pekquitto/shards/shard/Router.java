package io.pekquitto.shards.shard;

import io.pekquitto.protocol.TopicName;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.SessionCrossings;
import io.pekquitto.shards.routes.SharedGroups;
import io.pekquitto.shards.routes.SubscriberDeliveries;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.store.ShardPersistence;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each published message goes from one shard: its copy of the retained messages, one message
 * per local subscriber ({@link SubscriberDeliveries}), one member per matching shared group, and the
 * peers with matching filters; and how a message reaches a client here: held while its connection
 * drains, batched for its connection, or queued in its offline session. What a turn batches goes out
 * at {@link #flush()}: one message per connection and per peer.
 */
final class Router {
    private final Sessions<ConnectionRef> sessions;
    private final ReleaseDraining<ConnectionRef> draining;
    private final TopicRoutes routes;
    private final RetainedMessages retained;
    private final Mesh mesh;
    private final ShardPersistence persistence;
    /** Asks the shard for a flush at the end of the turn (a message to itself). */
    private final Runnable scheduleFlush;
    private final SubscriberDeliveries deliveries = new SubscriberDeliveries();
    /** Deliveries of this turn per connection. */
    private final Map<ConnectionRef, List<Message>> outgoing = new HashMap<>();
    /** The sessions crossing between shards; null until the shard wires them. */
    private SessionCrossings crossings;
    /** The peer whose interest routed the message being delivered (this shard for its own publishes), or none. */
    private int origin = SessionCrossings.NO_PEER;
    /** Items forwarded to peers so far: whether routing a message forwarded any. */
    private long forwards;

    Router(Sessions<ConnectionRef> sessions, ReleaseDraining<ConnectionRef> draining,
           TopicRoutes routes, RetainedMessages retained, Mesh mesh, ShardPersistence persistence,
           Runnable scheduleFlush) {
        this.sessions = sessions;
        this.draining = draining;
        this.routes = routes;
        this.retained = retained;
        this.mesh = mesh;
        this.persistence = persistence;
        this.scheduleFlush = scheduleFlush;
    }

    void crossings(SessionCrossings sessionCrossings) {
        crossings = sessionCrossings;
    }

    /**
     * A message published here: retained, delivered here, to shared members, and forwarded to matching
     * peers. Returns whether that wrote to the turn's batch or forwarded to a peer: what its publisher's
     * acknowledgement must wait for (a clean publisher's message to clean subscribers here waits for nothing).
     */
    boolean route(String publisherId, Message message) {
        int writes = persistence.batchedWrites();
        long forwardsBefore = forwards;
        routeAll(publisherId, message);
        return persistence.batchedWrites() != writes || forwards != forwardsBefore;
    }

    private void routeAll(String publisherId, Message message) {
        // The shard a retained message was published on is the one that stores it.
        // $SYS is published again at start: not written.
        if (retained.retain(message) && !TopicName.isBrokers(message.topic())) persistence.retained(message);
        var route = routes.routeFor(message.topic());
        origin = mesh.index();
        deliveries.deliver(route, publisherId, message, this::deliver);
        origin = SessionCrossings.NO_PEER;
        for (var group : route.groups()) {
            var member = group.next(null);
            if (member != null) sendToMember(group, member, publisherId, message, true, false);
        }
        if (!mesh.hasPeers()) return;
        // $SYS is each node's own: its figures go to the shards of this node alone (docs/cluster.md).
        boolean thisNodeOnly = TopicName.isBrokers(message.topic());
        if (message.retain()) {
            // Every shard keeps a copy of the retained messages.
            mesh.forEachPeer(shard -> {
                if (!thisNodeOnly || !mesh.isRemote(shard)) forward(shard, new Forwarded.Published(publisherId, message));
            });
        } else {
            for (int shard : route.remoteShards()) {
                if (!thisNodeOnly || !mesh.isRemote(shard)) forward(shard, new Forwarded.Published(publisherId, message));
            }
        }
    }

    /** This node's retained messages to a shard of a node that joined after it (docs/cluster.md, Retained messages across nodes). */
    void catchUp(int shard) {
        for (var message : retained.all()) {
            if (!TopicName.isBrokers(message.topic())) forward(shard, new Forwarded.Retained(message));  // $SYS: its own
        }
    }

    /** A message (or a marker of a session crossing) peer {@code from} forwarded here. */
    void forwarded(int from, Forwarded item) {
        if (item instanceof Forwarded.Published published) {
            var message = published.message();
            retained.retain(message);
            origin = from;
            deliveries.deliver(routes.routeFor(message.topic()), published.publisherId(), message, this::deliver);
            origin = SessionCrossings.NO_PEER;
        } else if (item instanceof Forwarded.ToClient toClient) {
            if (crossings.takesForwarded(toClient.clientId(), from)) deliver(toClient.clientId(), toClient.message());
        } else if (item instanceof Forwarded.Cut cut) {
            crossings.cut(cut.clientId(), from);
        } else if (item instanceof Forwarded.CutPassed passed) {
            crossings.passed(passed.clientId(), passed.peer());
        } else if (item instanceof Forwarded.ToMember toMember) {
            deliverToMember(toMember);
        } else if (item instanceof Forwarded.Retained caughtUp) {
            retained.caughtUp(caughtUp.message());
        } else {
            throw new IllegalStateException("unhandled forwarded item " + item);  // a new variant is handled here
        }
    }

    /**
     * The member a peer picked gets the message, or another one if it left or moved while it travelled.
     * If the member turned busier while the message travelled (its window filled, it stalled or went
     * offline, and the picking shard had not heard yet) and another member is more available, that one
     * gets it instead, once: this shard told every peer of the change before it sends the message on, and
     * a redirected message is not redirected again. Otherwise it waits in the member's queue.
     */
    private void deliverToMember(Forwarded.ToMember item) {
        persistence.relayDone(item.relay());  // taken on here: written with this shard's batch from now on
        var group = routes.sharedGroup(item.sharedFilter());
        if (group == null) return;
        var member = sessions.holds(item.clientId()) ? group.member(item.clientId()) : null;
        if (member != null && member.shard() == mesh.index()) {
            var better = item.redirected() ? null : group.nextBetterThan(member.availability(), member.clientId());
            if (better == null) {
                deliver(member.clientId(), SubscriberDeliveries.forMember(group, member, item.message()));
            } else {
                sendToMember(group, better, item.publisherId(), item.message(), false, true);
            }
            return;
        }
        var other = group.next(item.clientId());
        if (other != null) sendToMember(group, other, item.publisherId(), item.message(), false, item.redirected());
    }

    /**
     * @param covered    whether the publisher's acknowledgement waits for the peer's write (a message
     *                   published in this turn); if not, a message for a peer is relayed through the store
     * @param redirected the member's shard sends it on from a member that could not take it
     */
    private void sendToMember(SharedGroups.Group group, SharedGroups.Member member, String publisherId, Message message,
                              boolean covered, boolean redirected) {
        if (member.shard() == mesh.index()) {
            deliver(member.clientId(), SubscriberDeliveries.forMember(group, member, message));
            return;
        }
        // A relay is a key of this node's store, which another node cannot delete (docs/cluster.md, Not built yet).
        var relay = covered || mesh.isRemote(member.shard()) ? null
                : persistence.relay(member.clientId(), SubscriberDeliveries.forMember(group, member, message));
        forward(member.shard(),
                new Forwarded.ToMember(publisherId, message, member.clientId(), group.sharedFilter(), relay, redirected));
    }

    /** A message of a shared subscription whose member is gone (session ended, or moved): another member gets it. */
    void redeliverShared(String goneClientId, Message message) {
        var group = routes.sharedGroup(message.sharedFilter());
        if (group == null) return;  // nobody left in the group: the message has no subscriber
        var member = group.next(goneClientId);
        if (member != null) sendToMember(group, member, "", message.viaShared(""), false, false);
    }

    /** A message for one client of this shard; one routed by a peer's interest follows the client's crossing, if any. */
    void deliver(String clientId, Message message) {
        if (!crossings.isEmpty() && crossings.route(clientId, origin, message) == SessionCrossings.Decision.DONE) return;
        if (draining.hold(clientId, message)) {
            sessions.held(clientId, message);
            return;
        }
        var connection = sessions.deliver(clientId, message);
        if (connection != null) {
            var batch = outgoing.get(connection);
            if (batch == null) {
                outgoing.put(connection, batch = new ArrayList<>());
                scheduleFlush.run();
            }
            batch.add(message);
        } else if (message.isShared() && !sessions.holds(clientId)) {
            redeliverShared(clientId, message);
        } else {
            // Sent here after the session left (passed on from where it was before): it follows the session.
            int movedTo = sessions.movedTo(clientId);
            if (movedTo >= 0) forward(movedTo, new Forwarded.ToClient(clientId, message));
        }
    }

    /** The messages of a drained connection: to the client here, or after its session to the shard it went to. */
    void redeliver(ReleaseDraining.Drained drained) {
        for (var message : drained.messages()) {
            if (drained.movedTo() != ReleaseDraining.NOT_MOVED && !sessions.holds(drained.clientId())) {
                forward(drained.movedTo(), new Forwarded.ToClient(drained.clientId(), message));
            } else {
                deliver(drained.clientId(), message);
            }
        }
    }

    void forward(int shard, Forwarded item) {
        forwards++;
        if (mesh.forward(shard, item)) scheduleFlush.run();
    }

    /** Sends every connection and peer what this turn batched for it. */
    void flush() {
        outgoing.forEach((connection, batch) -> connection.tell(new Connection.Deliver(batch)));
        outgoing.clear();
        mesh.flush();
    }

    /** Sends a connection what is batched for it, before a message that must come after. */
    void flushTo(ConnectionRef connection) {
        var batch = outgoing.remove(connection);
        if (batch != null) connection.tell(new Connection.Deliver(batch));
    }

    /** Takes back what was batched for a connection that let its session go (it never left). */
    List<Message> takeUnsent(ConnectionRef connection) {
        var batch = outgoing.remove(connection);
        return batch == null ? List.of() : batch;
    }
}
