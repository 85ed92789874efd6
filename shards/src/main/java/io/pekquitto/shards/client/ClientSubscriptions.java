package io.pekquitto.shards.client;

import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.shards.client.InProcessClient.Subscribed;
import io.pekquitto.shards.client.InProcessClient.Unsubscribed;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.SubscribeChecks;
import io.pekquitto.shards.session.SubscribeRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * An in-process client's SUBSCRIBE and UNSUBSCRIBE, part of its actor: checked by the socket clients'
 * rules ({@link SubscribeChecks}, as an MQTT 5 client), applied by the shard under the packet
 * identifier that brings its answer back, and answered to the owner. The subscribers are watched: one
 * that stops has its subscriptions removed, so that nothing is routed to an actor that is gone.
 */
final class ClientSubscriptions {
    /** A SUBSCRIBE or UNSUBSCRIBE waiting for the shard's answer. */
    private record Pending(String topicFilter, Optional<ActorRef<Subscribed>> subscribed,
                           Optional<ActorRef<Unsubscribed>> unsubscribed) {}

    private final ActorContext<Object> context;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final String clientId;
    private final int maxQos;
    private final ClientAuthorizer acl;
    private final Map<Integer, Pending> pending = new HashMap<>();
    private final Set<ActorRef<ReceivedMessage>> watched = new HashSet<>();
    private int lastPacketId;

    ClientSubscriptions(ActorContext<Object> context, ActorRef<ShardRequest> shard, ConnectionRef self, String clientId,
                        int maxQos, ClientAuthorizer acl) {
        this.context = context;
        this.shard = shard;
        this.self = self;
        this.clientId = clientId;
        this.maxQos = maxQos;
        this.acl = acl;
    }

    /** Refused at once, or sent to the shard with a Subscription Identifier the window maps to the subscriber. */
    void subscribe(InProcessClient.Subscribe subscribe, SubscriberWindow<ActorRef<ReceivedMessage>> window) {
        var filter = subscribe.topicFilter();
        if (!PublishChecks.isMqttString(filter)) {
            answer(subscribe.replyTo(), filter, ReasonCode.TOPIC_FILTER_INVALID);
            return;
        }
        int packetId = nextPacketId();
        var packet = new Subscribe(packetId, List.of(new Subscription(filter, subscribe.options())), Properties.NONE);
        var outcome = SubscribeChecks.check(packet, ProtocolVersion.MQTT_5, maxQos, acl::canSubscribe);
        if (outcome instanceof SubscribeChecks.Violation violation) {
            answer(subscribe.replyTo(), filter, violation.reason());  // No Local on a shared subscription
            return;
        }
        var checked = (SubscribeChecks.Checked) outcome;
        if (checked.requests().isEmpty()) {
            answer(subscribe.replyTo(), filter, checked.reasons().get(0));  // invalid, or not allowed by the ACLs
            return;
        }
        var subscriber = subscribe.subscriber();
        if (watched.add(subscriber)) context.watchWith(subscriber, new InProcessClient.SubscriberStopped(subscriber));
        int identifier = window.subscribe(filter, subscriber);
        var request = new SubscribeRequest(filter, checked.requests().get(0).options(), identifier);
        pending.put(packetId, new Pending(filter, subscribe.replyTo(), Optional.empty()));
        shard.tell(new ShardRequest.Subscribe(clientId, packetId, checked.reasons(), List.of(request), self));
    }

    /** The shard's answer to a SUBSCRIBE: to the owner. */
    void subscribed(Connection.Subscribed subscribed) {
        var request = pending.remove(subscribed.packetId());
        if (request != null) answer(request.subscribed(), request.topicFilter(), subscribed.reasons().get(0));
    }

    void unsubscribe(String filter, Optional<ActorRef<Unsubscribed>> replyTo) {
        int packetId = nextPacketId();
        pending.put(packetId, new Pending(filter, Optional.empty(), replyTo));
        shard.tell(new ShardRequest.Unsubscribe(clientId, packetId, List.of(filter), self));
    }

    /** The shard's answer to an UNSUBSCRIBE: the messages routed before it have come; the window forgets the filter. */
    void unsubscribed(Connection.Unsubscribed unsubscribed, SubscriberWindow<ActorRef<ReceivedMessage>> window) {
        var request = pending.remove(unsubscribed.packetId());
        if (request == null) return;
        if (window != null) window.unsubscribed(request.topicFilter());
        request.unsubscribed().ifPresent(to -> to.tell(new Unsubscribed(request.topicFilter(), unsubscribed.reasons().get(0))));
    }

    /**
     * A watched subscriber stopped: its subscriptions are removed, here and in the broker, and what its
     * leaving lets out of the window is returned. Nothing when the client no longer holds its session ({@code window} null).
     */
    List<SubscriberWindow.Delivery<ActorRef<ReceivedMessage>>> subscriberStopped(
            ActorRef<ReceivedMessage> subscriber, SubscriberWindow<ActorRef<ReceivedMessage>> window, long now) {
        watched.remove(subscriber);
        if (window == null) return List.of();
        var left = window.subscriberStopped(subscriber, now);
        left.filters().forEach(filter -> unsubscribe(filter, Optional.empty()));
        return left.deliveries();
    }

    private void answer(Optional<ActorRef<Subscribed>> to, String filter, ReasonCode reason) {
        to.ifPresent(answer -> answer.tell(new Subscribed(filter, reason)));
    }

    private int nextPacketId() {
        do {
            lastPacketId = lastPacketId % 0xFFFF + 1;
        } while (pending.containsKey(lastPacketId));
        return lastPacketId;
    }
}
