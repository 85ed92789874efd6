package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Sessions;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a shard does with its peers' control messages (docs/shards-and-mesh.md, The control plane):
 * their route changes, session transfers, barriers, and the resynchronisation after a peer restarted.
 */
final class ControlPlane {
    private final TopicRoutes routes;
    private final Sessions<ConnectionRef> sessions;
    private final Mesh mesh;
    private final DurableTurns turns;
    private final ShardSessions shardSessions;
    private final Router router;
    private final LongSupplier clock;
    private final ShardCrossings crossings;

    ControlPlane(TopicRoutes routes, Sessions<ConnectionRef> sessions, Mesh mesh, DurableTurns turns,
                 ShardSessions shardSessions, Router router, ShardCrossings crossings, LongSupplier clock) {
        this.routes = routes;
        this.sessions = sessions;
        this.mesh = mesh;
        this.turns = turns;
        this.shardSessions = shardSessions;
        this.router = router;
        this.clock = clock;
        this.crossings = crossings;
    }

    void receive(int from, ControlMessage message) {
        mesh.heardFrom(from);
        if (message instanceof ControlMessage.Routes changed) {
            routes.applyPeerChange(from, changed.change());
        } else if (message instanceof ControlMessage.Sessions transfer) {
            shardSessions.receive(transfer.transfer());
        } else if (message instanceof ControlMessage.Moved moved) {
            crossings.cutOver(moved.clientId(), moved.from(), from);
        } else if (message instanceof ControlMessage.Sync sync) {
            mesh.control(from, new ControlMessage.SyncAck(sync.token()));
        } else if (message instanceof ControlMessage.SyncAck ack) {
            var then = mesh.synced(ack.token(), from);
            if (then != null) then.run();
        } else if (message instanceof ControlMessage.Hello) {
            onHello(from);
        } else if (message instanceof ControlMessage.Homes homes) {
            shardSessions.perform(sessions.homes(from, homes.epoch(), homes.round(), homes.holders()));
        } else if (message instanceof ControlMessage.Resync resync) {
            // All the peer announces now: what it announced before is in it (FIFO), or withdrawn.
            routes.forgetPeer(from);
            resync.routes().forEach(change -> routes.applyPeerChange(from, change));
            sessions.restoreHolders(resync.heldSessions());
        } else {
            throw new IllegalStateException("unhandled control message " + message);  // a new variant is handled here
        }
    }

    /**
     * The cluster's view of the other nodes' shards changed: a shard listed now hears that we are here (and
     * resynchronises us); one whose node left is forgotten: its routes, what waited for it, and what we
     * waited for from it (a SUBACK's barrier, a publisher's acknowledgement: it will not answer). The ring of
     * homes changes with them, and the wills this shard keeps for the clients of the gone shards are published (but for
     * a node that left: it published them itself); a shard of a node younger than this one gets this node's retained
     * messages.
     */
    void peersChanged(ShardCommand.PeersChanged changed) {
        for (int shard : changed.gone()) {
            crossings.rules().peerGone(shard);
            routes.forgetPeer(shard);
            mesh.gone(shard).forEach(Runnable::run);
            turns.peersAcknowledged(shard, true);
        }
        changed.joined().forEach(mesh::joined);
        mesh.leaving(changed.leaving());
        // A node's retained messages go once to a node that joins after it: from its first shard.
        if (mesh.index() == 0) changed.catchUp().forEach(router::catchUp);
        shardSessions.perform(sessions.ringChanged(mesh.ring(), Set.copyOf(changed.gone()), Set.copyOf(changed.left()),
                clock.getAsLong()));
    }

    /** A peer (re)started with empty state: forget what it told us, and tell it what it must know of us. */
    private void onHello(int from) {
        crossings.rules().peerGone(from);
        routes.forgetPeer(from);
        mesh.peerRestarted(from);
        turns.peersAcknowledged(from, true);
        mesh.control(from, new ControlMessage.Resync(routes.announcements(), sessions.heldWithHome(from)));
        shardSessions.perform(sessions.peerRestarted(from));
    }
}
