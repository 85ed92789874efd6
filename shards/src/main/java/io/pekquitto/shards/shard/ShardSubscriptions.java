package io.pekquitto.shards.shard;

import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;

/**
 * A shard's SUBSCRIBE and UNSUBSCRIBE: the session's subscriptions, this shard's routes and the peers'
 * (announced on the mesh), and the answer to the connection. A SUBACK waits until every peer routes the
 * new filters, so that a message published after it is never missed; retained messages follow it. And
 * how soon a shared subscription's member here can take work, announced like its Join and Leave.
 */
final class ShardSubscriptions {
    private final Sessions<ConnectionRef> sessions;
    private final TopicRoutes routes;
    private final RetainedMessages retained;
    private final Mesh mesh;
    private final Router router;

    ShardSubscriptions(Sessions<ConnectionRef> sessions, TopicRoutes routes, RetainedMessages retained, Mesh mesh,
                       Router router) {
        this.sessions = sessions;
        this.routes = routes;
        this.retained = retained;
        this.mesh = mesh;
        this.router = router;
    }

    void subscribe(ShardRequest.Subscribe subscribe, long now) {
        var subscriptions = sessions.subscriptionsOf(subscribe.clientId());
        var retainedToSend = new ArrayList<Message>();
        if (subscriptions != null) {
            for (var request : subscribe.requests()) {
                var entry = new SubscriptionEntry(request.options(), request.subscriptionIdentifier());
                var subscribed = routes.subscribe(subscribe.clientId(), request.topicFilter(), entry);
                mesh.announce(subscribed.announce());
                subscriptions.put(request.topicFilter(), entry);
                retainedToSend.addAll(retained.forSubscription(request, subscribed.previous().isEmpty(), now));
            }
        }
        sessions.subscriptionsChanged(subscribe.clientId());
        var reply = new Connection.Subscribed(subscribe.packetId(), subscribe.reasons(), retainedToSend);
        mesh.afterPeersApplied(() -> {
            router.flushTo(subscribe.replyTo());
            subscribe.replyTo().tell(reply);
        });
    }

    /** How soon the client of this connection can take shared subscriptions' work changed. */
    void available(ConnectionRef connection, Availability availability) {
        var clientId = sessions.attachedClient(connection);
        if (clientId != null) mesh.announce(routes.connectionSays(clientId, availability));
    }

    /** The connection lets its session go: as a shared member its client takes no work until a connection has it again. */
    void detached(ConnectionRef connection) {
        var clientId = sessions.attachedClient(connection);
        if (clientId != null) mesh.announce(routes.detached(clientId));
    }

    void unsubscribe(ShardRequest.Unsubscribe unsubscribe) {
        var subscriptions = sessions.subscriptionsOf(unsubscribe.clientId());
        var reasons = new ArrayList<ReasonCode>(unsubscribe.topicFilters().size());
        for (var filter : unsubscribe.topicFilters()) {
            boolean existed = subscriptions != null && subscriptions.remove(filter) != null;
            if (existed) mesh.announce(routes.unsubscribe(unsubscribe.clientId(), filter));
            reasons.add(existed ? ReasonCode.SUCCESS : ReasonCode.NO_SUBSCRIPTION_EXISTED);
        }
        sessions.subscriptionsChanged(unsubscribe.clientId());
        router.flushTo(unsubscribe.replyTo());  // deliveries routed before the UNSUBSCRIBE go before its UNSUBACK
        unsubscribe.replyTo().tell(new Connection.Unsubscribed(unsubscribe.packetId(), reasons));
    }
}
