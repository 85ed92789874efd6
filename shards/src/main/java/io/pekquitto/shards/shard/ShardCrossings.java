package io.pekquitto.shards.shard;

import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.routes.SessionCrossings;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SessionTransfer;
import java.util.function.Consumer;

/**
 * A shard's part in sessions crossing between shards ({@link SessionCrossings}; docs/shards-and-mesh.md, A session
 * crossing): the rules, and what they make the shard do: forward a client's message, pass a peer's cut, withdraw a
 * crossed session's filters, deliver what waited, hand on a session once it crossed.
 */
final class ShardCrossings implements SessionCrossings.Actions {
    private final TopicRoutes routes;
    private final Mesh mesh;
    private final Router router;
    private final Consumer<SessionTransfer> transfers;
    private final SessionCrossings crossings = new SessionCrossings(this);

    private ShardCrossings(TopicRoutes routes, Mesh mesh, Router router, Consumer<SessionTransfer> transfers) {
        this.routes = routes;
        this.mesh = mesh;
        this.router = router;
        this.transfers = transfers;
    }

    /** The shard's crossings, known to its router and its session effects; {@code transfers}: how it handles a session transfer. */
    static ShardCrossings wire(TopicRoutes routes, Mesh mesh, Router router, ShardSessions shardSessions,
                               Consumer<SessionTransfer> transfers) {
        var crossings = new ShardCrossings(routes, mesh, router, transfers);
        shardSessions.crossings(crossings);
        router.crossings(crossings.rules());
        return crossings;
    }

    SessionCrossings rules() {
        return crossings;
    }

    /**
     * The peer {@code sender} says the client's session arrived there from shard {@code from}: this shard cuts its
     * stream for the client, with a marker in its data plane to both (to itself at once).
     */
    void cutOver(String clientId, int from, int sender) {
        for (int shard : new int[] {from, sender}) {
            if (shard == mesh.index()) {
                crossings.cut(clientId, shard);
            } else {
                router.forward(shard, new Forwarded.Cut(clientId));
            }
        }
    }

    @Override
    public void forward(int shard, String clientId, Message message) {
        router.forward(shard, new Forwarded.ToClient(clientId, message));
    }

    @Override
    public void cutPassed(int shard, String clientId, int peer) {
        router.forward(shard, new Forwarded.CutPassed(clientId, peer));
    }

    @Override
    public void unsubscribe(String clientId, String filter) {
        mesh.announce(routes.unsubscribe(clientId, filter));
    }

    @Override
    public void deliver(String clientId, Message message) {
        router.deliver(clientId, message);
    }

    @Override
    public void transfer(SessionTransfer transfer) {
        transfers.accept(transfer);
    }
}
