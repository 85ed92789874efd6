package io.pekquitto.shards.client;

import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardEnvironment;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * An MQTT client inside the broker's JVM, for actors: a connection without a socket. Ask the broker for
 * one ({@code BrokerCommand.ConnectClient}); it lives on the shard of its client id, as a child of the shard
 * like the socket connections, and speaks their protocol to it ({@link ShardRequest} and
 * {@link Connection.Command}), so sessions (client id takeover, Clean Start, expiry, wills), routing,
 * retained messages, shared subscriptions, the mesh and the store treat it as any MQTT 5 client.
 *
 * <p>It converts: a {@link Publish} becomes a routed message, judged by {@link PublishChecks}, and is
 * {@link Published} once routed to every shard it goes to (and written, with a store: a PUBACK's
 * promise); a {@link Subscribe} names the actor that gets the matching messages as
 * {@link ReceivedMessage}s, each to be acknowledged ({@link SubscriberWindow}). Commands are told from
 * any thread; the client handles them in order on its shard's thread.
 *
 * <p>Its behaviour takes both its owner's {@link Command}s and the shard's {@link Connection.Command}s,
 * whose one common supertype is {@code Object}: the shard spawns it as a connection ({@link #create}
 * narrows it), and its owner gets it as a client ({@link Connected#client()}), the same actor.
 */
public final class InProcessClient extends AbstractBehavior<Object> {

    /** What the owner of an in-process client tells it, and what its subscribers' acknowledgements tell it. */
    public sealed interface Command {}

    /**
     * Publish an application message. {@code replyTo} hears {@link Published} once the message is routed
     * (and stored, with a store); a QoS 1/2 publish waits for that even without a {@code replyTo}, and at
     * most {@code receive-maximum} publishes may wait at once: more are refused with 0x97 Quota exceeded.
     */
    public record Publish(String topic, Binary payload, QoS qos, boolean retain, MessageProperties properties,
                          Optional<ActorRef<Published>> replyTo) implements Command {
        public Publish {
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(payload, "payload");
            Objects.requireNonNull(qos, "qos");
            Objects.requireNonNull(properties, "properties");
            Objects.requireNonNull(replyTo, "replyTo");
        }

        public Publish(String topic, Binary payload, QoS qos, boolean retain) {
            this(topic, payload, qos, retain, MessageProperties.NONE, Optional.empty());
        }

        public Publish(String topic, Binary payload, QoS qos, boolean retain, MessageProperties properties) {
            this(topic, payload, qos, retain, properties, Optional.empty());
        }

        public Publish(String topic, Binary payload, QoS qos, boolean retain, MessageProperties properties,
                       ActorRef<Published> replyTo) {
            this(topic, payload, qos, retain, properties, Optional.of(replyTo));
        }
    }

    /** The answer to a {@link Publish}: 0x00 Success, or why it was not routed (what a PUBACK would say). */
    public record Published(ReasonCode reason, String why) {
        public boolean isSuccess() {
            return !reason.isError();
        }
    }

    /**
     * Subscribe {@code subscriber} to a topic filter ({@code $share/GROUP/filter} too), with the options of
     * MQTT 5 (maximum QoS, No Local, Retain As Published, Retain Handling). The same filter again replaces
     * the subscription, subscriber included. {@code replyTo} hears {@link Subscribed}.
     */
    public record Subscribe(String topicFilter, SubscriptionOptions options, ActorRef<ReceivedMessage> subscriber,
                            Optional<ActorRef<Subscribed>> replyTo) implements Command {
        public Subscribe {
            Objects.requireNonNull(topicFilter, "topicFilter");
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(subscriber, "subscriber");
            Objects.requireNonNull(replyTo, "replyTo");
        }

        public Subscribe(String topicFilter, QoS qos, ActorRef<ReceivedMessage> subscriber) {
            this(topicFilter, SubscriptionOptions.of(qos), subscriber, Optional.empty());
        }

        public Subscribe(String topicFilter, QoS qos, ActorRef<ReceivedMessage> subscriber, ActorRef<Subscribed> replyTo) {
            this(topicFilter, SubscriptionOptions.of(qos), subscriber, Optional.of(replyTo));
        }
    }

    /** The answer to a {@link Subscribe}: the granted QoS (0x00..0x02) or why not (what a SUBACK would say). */
    public record Subscribed(String topicFilter, ReasonCode reason) {
        public boolean isSuccess() {
            return !reason.isError();
        }
    }

    /** Remove a subscription; {@code replyTo} hears {@link Unsubscribed} once the messages routed before it are delivered. */
    public record Unsubscribe(String topicFilter, Optional<ActorRef<Unsubscribed>> replyTo) implements Command {
        public Unsubscribe {
            Objects.requireNonNull(topicFilter, "topicFilter");
            Objects.requireNonNull(replyTo, "replyTo");
        }

        public Unsubscribe(String topicFilter, ActorRef<Unsubscribed> replyTo) {
            this(topicFilter, Optional.of(replyTo));
        }
    }

    /** The answer to an {@link Unsubscribe}: 0x00 Success or 0x11 No subscription existed. */
    public record Unsubscribed(String topicFilter, ReasonCode reason) {}

    /**
     * End the client, once the publishes waiting for their {@link Published} have had it: its session goes
     * back to the broker (kept for its Session Expiry Interval), and its will is published only
     * {@code WITH_WILL} (DISCONNECT 0x04; {@code NORMAL} is 0x00). The actor stops then.
     */
    public enum Disconnect implements Command { NORMAL, WITH_WILL }

    /** From a {@link ReceivedMessage}: its subscriber has handled it. */
    record Acknowledge(long delivery) implements Command {}

    /** A subscriber this client watches has stopped ({@link ClientSubscriptions}). */
    record SubscriberStopped(ActorRef<ReceivedMessage> subscriber) implements Command {}

    /** From the broker to the shard that is to serve the client: spawn it. */
    public record Start(ConnectOptions options, ActorRef<ConnectOutcome> replyTo) implements ShardMessage {}

    /** The answer to a connect: {@link Connected} or {@link Refused}. */
    public sealed interface ConnectOutcome {}

    /**
     * The client is connected: tell it {@link Command}s. It stops when it ends (a {@link Disconnect}, a
     * takeover by a connection with its client id, the broker stopping): watch it to know.
     *
     * @param clientId the client identifier, assigned by the broker if the options gave none
     */
    public record Connected(ActorRef<Command> client, String clientId, boolean sessionPresent) implements ConnectOutcome {}

    /** The connect was refused, with what a CONNACK would say. */
    public record Refused(ReasonCode reason, String why) implements ConnectOutcome {}

    private enum Phase { ATTACHING, CONNECTED, RELEASED }

    /** The answers to publishes whose writes are done, or failed. */
    private static final Published SUCCESS = new Published(ReasonCode.SUCCESS, "");
    private static final Published STORE_FAILING = new Published(ReasonCode.QUOTA_EXCEEDED, ShardEnvironment.STORE_FAILING);

    private final BrokerSettings settings;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final ActorRef<Command> client;
    private final LongSupplier clock;
    private final ConnectOptions options;
    private final ActorRef<ConnectOutcome> replyTo;
    private final String clientId;
    private final long sessionExpiryInterval;
    private final ClientAuthorizer acl;
    private Phase phase = Phase.ATTACHING;
    private SubscriberWindow<ActorRef<ReceivedMessage>> window;
    /** The answers of the publishes routed with awaitingAck, in order (the shard confirms them in order). */
    private final ArrayDeque<Optional<ActorRef<Published>>> awaitingRoute = new ArrayDeque<>();
    private final ClientSubscriptions subscriptions;
    /** A Disconnect waiting for the publishes before it; then null again. */
    private Disconnect disconnecting;
    private boolean releaseConfirmed;
    private boolean quotaWarned;
    /** The broker shuts down: the session goes back as soon as it is here. */
    private boolean shuttingDown;
    /** A persistent session kept in a durable store: it is there again after a restart (no will at shutdown). */
    private final boolean sessionOutlivesBroker;
    private final ShardStats stats;
    private final ShardEnvironment environment;

    /**
     * The client the shard spawns for {@code start}, served by {@code self}, as a connection: the shard
     * sees its {@link Connection.Command}s only. A connect refused by its checks is answered at once.
     */
    public static Behavior<Connection.Command> create(ShardEnvironment environment, ActorRef<ShardRequest> shard,
                                                      ConnectionRef self, Start start) {
        Behavior<Object> client = Behaviors.setup(context -> {
            var settings = environment.settings();
            var outcome = ConnectChecks.check(start.options(), environment.security().authorizer(), settings,
                    environment.clock().getAsLong(), environment.storeFailing());
            if (outcome instanceof ConnectChecks.Refused refused) {
                context.getLog().debug("[{}] in-process connect refused: [{}] {}", start.options().clientId(), refused.reason(), refused.why());
                start.replyTo().tell(new Refused(refused.reason(), refused.why()));
                return Behaviors.stopped();
            }
            return new InProcessClient(context, environment, shard, self, start, (ConnectChecks.Accepted) outcome);
        });
        return client.narrow();
    }

    private InProcessClient(ActorContext<Object> context, ShardEnvironment environment, ActorRef<ShardRequest> shard,
                            ConnectionRef self, Start start, ConnectChecks.Accepted terms) {
        super(context);
        this.settings = environment.settings();
        this.shard = shard;
        this.self = self;
        this.client = context.getSelf().narrow();
        this.clock = environment.clock();
        this.options = start.options();
        this.replyTo = start.replyTo();
        this.clientId = terms.clientId();
        this.sessionExpiryInterval = terms.sessionExpiryInterval();
        this.sessionOutlivesBroker = environment.outlivesBroker(sessionExpiryInterval);
        this.stats = environment.stats();
        this.environment = environment;
        this.acl = terms.acl();
        this.subscriptions = new ClientSubscriptions(context, shard, self, clientId, settings.maxQos(), acl);
        shard.tell(new ShardRequest.Attach(clientId, options.cleanStart(), sessionExpiryInterval, self,
                options.will().map(w -> w.at(now()))));
    }

    @Override
    public Receive<Object> createReceive() {
        return newReceiveBuilder()
                .onMessage(Publish.class, this::onPublish)
                .onMessage(Acknowledge.class, this::onAcknowledge)
                .onMessage(Subscribe.class, this::onSubscribe)
                .onMessage(Unsubscribe.class, this::onUnsubscribe)
                .onMessage(Disconnect.class, this::onDisconnect)
                .onMessage(SubscriberStopped.class, this::onSubscriberStopped)
                .onMessage(Connection.Deliver.class, this::onDeliver)
                .onMessage(Connection.AcknowledgementsWritten.class, written -> settle(written.count(), SUCCESS))
                .onMessage(Connection.WritesFailed.class, failed -> settle(failed.count(), STORE_FAILING))
                .onMessage(Connection.Attached.class, this::onAttached)
                .onMessage(Connection.Refused.class, this::onRefused)
                .onMessage(Connection.Subscribed.class, this::onSubscribed)
                .onMessage(Connection.Unsubscribed.class, this::onUnsubscribed)
                .onMessageEquals(Connection.TakenOver.INSTANCE, this::onTakenOver)
                .onMessageEquals(Connection.ServerShuttingDown.INSTANCE, this::onServerShuttingDown)
                .onMessageEquals(Connection.ReleaseConfirmed.INSTANCE, this::onReleaseConfirmed)
                .build();
    }

    private long now() {
        return clock.getAsLong();
    }

    private boolean isConnected() {
        return phase == Phase.CONNECTED && disconnecting == null;
    }

    // ---- the session

    private Behavior<Object> onAttached(Connection.Attached attached) {
        phase = Phase.CONNECTED;
        int qos0Limit = Math.max(settings.maxInflightMessages(), settings.maxQueuedMessages());
        window = new SubscriberWindow<>(attached.session(), settings.maxInflightMessages(), qos0Limit, stats);
        if (shuttingDown) {
            replyTo.tell(new Refused(ReasonCode.SERVER_SHUTTING_DOWN, "the broker is shutting down"));
            return release(!sessionOutlivesBroker);
        }
        getContext().getLog().debug("[{}] in-process client connected (session present {})", clientId, attached.sessionPresent());
        replyTo.tell(new Connected(client, clientId, attached.sessionPresent()));
        return tell(window.resume(now()));
    }

    /** The shard has no session for us (the memory budget has no room for a new persistent one). */
    private Behavior<Object> onRefused(Connection.Refused refused) {
        getContext().getLog().debug("[{}] in-process connect refused: [{}] {}", clientId, refused.reason(), refused.why());
        replyTo.tell(new Refused(refused.reason(), refused.why()));
        return Behaviors.stopped();
    }

    /** [MQTT-3.1.4-3] another connection claimed the client id: the will is published, as for a socket client. */
    private Behavior<Object> onTakenOver() {
        if (phase == Phase.ATTACHING) {
            replyTo.tell(new Refused(ReasonCode.SESSION_TAKEN_OVER, "another connection claimed the client id meanwhile"));
            return Behaviors.stopped();  // no session comes to us
        }
        if (phase == Phase.RELEASED) return this;
        getContext().getLog().debug("[{}] in-process client taken over", clientId);
        return release(disconnecting == null || disconnecting == Disconnect.WITH_WILL);  // a Disconnect asked for keeps its word
    }

    /** As a socket client's: the session goes back, its will published unless the session outlives the broker. */
    private Behavior<Object> onServerShuttingDown() {
        if (phase == Phase.ATTACHING) {
            shuttingDown = true;
        } else if (phase == Phase.CONNECTED) {
            getContext().getLog().debug("[{}] in-process client disconnected: the broker shuts down", clientId);
            return release(!sessionOutlivesBroker);
        }
        return this;
    }

    private Behavior<Object> onDisconnect(Disconnect disconnect) {
        if (!isConnected()) return this;
        disconnecting = disconnect;
        return awaitingRoute.isEmpty() ? release(disconnect == Disconnect.WITH_WILL) : this;
    }

    /** The session goes back to the shard, with the will if due (at once, or after its delay). */
    private Behavior<Object> release(boolean publishWill) {
        phase = Phase.RELEASED;
        long now = now();
        var will = options.will().filter(w -> publishWill).map(w -> w.at(now));
        will.filter(w -> w.delaySeconds() == 0).ifPresent(w -> shard.tell(new ShardRequest.Route(clientId, w.message())));
        shard.tell(new ShardRequest.Release(clientId, self, window.session(), sessionExpiryInterval,
                will.filter(w -> w.delaySeconds() > 0)));
        return this;
    }

    /** Everything the shard sent before our Release has come back to it; we stop once our publishes are answered. */
    private Behavior<Object> onReleaseConfirmed() {
        shard.tell(new ShardRequest.Drained(self));
        releaseConfirmed = true;
        return stopIfDone();
    }

    private Behavior<Object> stopIfDone() {
        if (!releaseConfirmed || !awaitingRoute.isEmpty()) return this;
        getContext().getLog().debug("[{}] in-process client disconnected", clientId);
        return Behaviors.stopped();
    }

    // ---- publishing

    private Behavior<Object> onPublish(Publish publish) {
        if (!isConnected()) return answer(publish.replyTo(), ReasonCode.UNSPECIFIED_ERROR, "the client is disconnected");
        boolean awaitsRoute = publish.qos() != QoS.AT_MOST_ONCE || publish.replyTo().isPresent();
        if (awaitsRoute && awaitingRoute.size() >= settings.receiveMaximum()) {
            if (!quotaWarned) {
                getContext().getLog().warn("[{}] in-process publishes refused: more than receive-maximum ({}) await "
                        + "their Published; wait for it before publishing more", clientId, settings.receiveMaximum());
                quotaWarned = true;
            }
            return answer(publish.replyTo(), ReasonCode.QUOTA_EXCEEDED, "more than receive-maximum publishes await their Published");
        }
        var outcome = PublishChecks.check(publish.topic(), publish.payload(), publish.qos(), publish.retain(),
                publish.properties(), acl, settings, now());
        if (outcome instanceof PublishChecks.Refused refused) {
            getContext().getLog().trace("[{}] publish refused: [{}] {}", clientId, refused.reason(), refused.why());
            return answer(publish.replyTo(), refused.reason(), refused.why());
        }
        var message = ((PublishChecks.Accepted) outcome).message();
        if (publish.qos() != QoS.AT_MOST_ONCE && environment.storeFailing()) {
            environment.storeHealth().refused();
            return answer(publish.replyTo(), ReasonCode.QUOTA_EXCEEDED, ShardEnvironment.STORE_FAILING);
        }
        if (awaitsRoute) {
            // Confirmed once routed here and by every peer it went to, and with a store once written.
            awaitingRoute.add(publish.replyTo());
            shard.tell(new ShardRequest.Route(clientId, message, self, 0));
        } else {
            shard.tell(new ShardRequest.Route(clientId, message));
        }
        return this;
    }

    /** The writes of the next {@code count} publishes are done, or failed (the store fails: refused, though subscribers may have had them). */
    private Behavior<Object> settle(int count, Published answer) {
        for (int i = 0; i < count && !awaitingRoute.isEmpty(); i++) awaitingRoute.poll().ifPresent(to -> to.tell(answer));
        if (disconnecting != null && phase == Phase.CONNECTED && awaitingRoute.isEmpty()) {
            return release(disconnecting == Disconnect.WITH_WILL);
        }
        return stopIfDone();
    }

    private Behavior<Object> answer(Optional<ActorRef<Published>> to, ReasonCode reason, String why) {
        to.ifPresent(answer -> answer.tell(new Published(reason, why)));
        return this;
    }

    // ---- subscribing

    private Behavior<Object> onSubscribe(Subscribe subscribe) {
        if (isConnected()) {
            subscriptions.subscribe(subscribe, window);
        } else {
            subscribe.replyTo().ifPresent(to -> to.tell(new Subscribed(subscribe.topicFilter(), ReasonCode.UNSPECIFIED_ERROR)));
        }
        return this;
    }

    /** The shard applied it and every peer routes it: the answer, then the retained messages ([MQTT-3.3.1-9]). */
    private Behavior<Object> onSubscribed(Connection.Subscribed subscribed) {
        subscriptions.subscribed(subscribed);
        if (phase != Phase.CONNECTED) return this;
        tell(window.deliver(subscribed.retained(), now()));
        return tell(window.claimUnclaimed());
    }

    private Behavior<Object> onUnsubscribe(Unsubscribe unsubscribe) {
        if (isConnected()) {
            subscriptions.unsubscribe(unsubscribe.topicFilter(), unsubscribe.replyTo());
        } else {
            unsubscribe.replyTo().ifPresent(to -> to.tell(new Unsubscribed(unsubscribe.topicFilter(), ReasonCode.UNSPECIFIED_ERROR)));
        }
        return this;
    }

    private Behavior<Object> onUnsubscribed(Connection.Unsubscribed unsubscribed) {
        subscriptions.unsubscribed(unsubscribed, window);
        return this;
    }

    /** A subscriber stopped: its subscriptions go, and what it had not acknowledged counts as delivered. */
    private Behavior<Object> onSubscriberStopped(SubscriberStopped stopped) {
        var left = subscriptions.subscriberStopped(stopped.subscriber(), phase == Phase.CONNECTED ? window : null, now());
        return tell(left);
    }

    // ---- receiving

    private Behavior<Object> onDeliver(Connection.Deliver deliver) {
        if (phase == Phase.CONNECTED) return tell(window.deliver(deliver.messages(), now()));
        if (phase == Phase.RELEASED) {
            // Sent by the shard before it saw our Release: back to it, in order, not lost.
            deliver.messages().forEach(message -> shard.tell(new ShardRequest.Bounce(self, message)));
        }
        return this;
    }

    private Behavior<Object> onAcknowledge(Acknowledge acknowledge) {
        if (phase != Phase.CONNECTED) return this;  // the session is gone: its unacknowledged messages are sent again
        return tell(window.acknowledged(acknowledge.delivery(), now()));
    }

    private Behavior<Object> tell(List<SubscriberWindow.Delivery<ActorRef<ReceivedMessage>>> deliveries) {
        for (var delivery : deliveries) {
            var publish = delivery.publish();
            delivery.subscriber().tell(new ReceivedMessage(publish.topic(), publish.payload(), publish.qos(), publish.retain(),
                    publish.dup(), MessageProperties.of(publish.properties()), client, delivery.number()));
        }
        return this;
    }
}
