package io.pekquitto.shards;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.routing.RetainedIndex;
import io.pekquitto.routing.SubscriptionTrie;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionStage;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Tcp;

/**
 * A shard: one single-thread dispatcher that owns a set of client sessions, their subscriptions, the
 * retained messages and the connection actors (its children, on the same thread). Sessions, the
 * subscription index and the retained index are plain single-threaded structures: no locks.
 *
 * <p>A session is in one of three states here. Online: its connection actor holds the {@link Session}
 * and the shard routes to the actor. Offline (persistent session, no connection): the shard holds the
 * Session and queues into it. Taking over: a new connection waits for the old one to hand the Session
 * back ({@link Release}); messages routed meanwhile are held and given to the new connection.
 */
public final class Shard extends AbstractBehavior<Shard.Command> {

    public sealed interface Command {}

    /** A new TCP connection from a listener, to be served by this shard. */
    public record Accept(Tcp.IncomingConnection connection) implements Command {}

    /** A CONNECT was accepted by the connection; attach it to the client's session. */
    public record Connect(String clientId, boolean cleanStart, long sessionExpiryInterval,
                          ActorRef<Connection.Command> connection) implements Command {}

    /** Route a published message to every matching subscription, and retain it if asked. */
    public record Route(String publisherId, Message message) implements Command {}

    public record Subscribe(String clientId, int packetId, List<ReasonCode> reasons, List<SubscribeRequest> requests,
                            ActorRef<Connection.Command> replyTo) implements Command {}

    public record Unsubscribe(String clientId, int packetId, List<String> topicFilters,
                              ActorRef<Connection.Command> replyTo) implements Command {}

    /** A connection's routes so far are done: it may read its socket again (backpressure, see Connection). */
    public record ResumeReading(Transport transport) implements Command {}

    /** The connection has ended; the session goes back to the shard (or ends, with expiry 0). */
    public record Release(String clientId, ActorRef<Connection.Command> connection, Session session,
                          long sessionExpiryInterval) implements Command {}

    private record ConnectionStopped(ActorRef<Connection.Command> connection) implements Command {}

    private record SessionExpiryCheck(String clientId, long generation) implements Command {}

    /** Pekko's scheduler cannot hold timers of years; long expiries are checked in steps of this. */
    private static final Duration LONGEST_TIMER = Duration.ofDays(7);

    private final BrokerSettings settings;
    private final String dispatcher;
    private final TimerScheduler<Command> timers;
    private final Materializer materializer;
    private final Map<String, ClientState> clients = new HashMap<>();
    private final Map<ActorRef<Connection.Command>, String> clientIdByConnection = new HashMap<>();
    private final SubscriptionTrie<String, SubscriptionEntry> subscriptions = new SubscriptionTrie<>();
    private final RetainedIndex<Message> retained = new RetainedIndex<>();
    /** Per-publish scratch: one delivery per client however many of its subscriptions match. */
    private final Map<String, Delivery> deliveries = new HashMap<>();
    private long connectionSequence;

    /** What the shard knows of one client id. */
    private static final class ClientState {
        final String clientId;
        final Map<String, SubscriptionEntry> subscriptions = new HashMap<>();
        ActorRef<Connection.Command> connection;
        Session session;
        long sessionExpiryInterval;
        Connect waitingTakeover;
        List<Message> heldDuringTakeover;
        long generation;
        long expiresAtNanos;

        ClientState(String clientId) { this.clientId = clientId; }
    }

    /** The aggregate of one client's matching subscriptions for one message. */
    private static final class Delivery {
        QoS qos = QoS.AT_MOST_ONCE;
        boolean retainAsPublished;
        List<Integer> subscriptionIdentifiers;
    }

    public static Behavior<Command> create(BrokerSettings settings, String dispatcher) {
        return Behaviors.setup(context -> Behaviors.withTimers(
                timers -> new Shard(context, timers, settings, dispatcher)));
    }

    private Shard(ActorContext<Command> context, TimerScheduler<Command> timers, BrokerSettings settings,
                  String dispatcher) {
        super(context);
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.timers = timers;
        this.materializer = Materializer.createMaterializer(context);
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Accept.class, this::onAccept)
                .onMessage(Connect.class, this::onConnect)
                .onMessage(Route.class, this::onRoute)
                .onMessage(Subscribe.class, this::onSubscribe)
                .onMessage(Unsubscribe.class, this::onUnsubscribe)
                .onMessage(ResumeReading.class, resume -> {
                    resume.transport().readMore();
                    return this;
                })
                .onMessage(Release.class, this::onRelease)
                .onMessage(ConnectionStopped.class, this::onConnectionStopped)
                .onMessage(SessionExpiryCheck.class, this::onSessionExpiryCheck)
                .build();
    }

    private Behavior<Command> onAccept(Accept accept) {
        var connection = getContext().spawn(
                Connection.create(settings, getContext().getSelf(), accept.connection().remoteAddress()),
                "connection-" + (++connectionSequence), DispatcherSelector.sameAsParent());
        getContext().watchWith(connection, new ConnectionStopped(connection));
        // The TCP stage and ours run on this shard's thread: attributes on the joined graph (DESIGN.md).
        accept.connection().flow()
                .join(Flow.fromGraph(new ConnectionStage(connection)))
                .withAttributes(ActorAttributes.dispatcher(dispatcher))
                .run(materializer);
        return this;
    }

    private Behavior<Command> onConnect(Connect connect) {
        var state = clients.get(connect.clientId());
        clientIdByConnection.put(connect.connection(), connect.clientId());
        if (state != null && state.connection != null) {
            // [MQTT-3.1.4-3] the existing connection is closed; it hands the session back first.
            if (state.waitingTakeover != null) {
                // A third connection while a takeover is pending: the waiting one loses.
                state.waitingTakeover.connection().tell(Connection.TakenOver.INSTANCE);
            } else {
                state.connection.tell(Connection.TakenOver.INSTANCE);
                state.heldDuringTakeover = new ArrayList<>();
            }
            state.waitingTakeover = connect;
            return this;
        }
        attach(connect, state);
        return this;
    }

    private void attach(Connect connect, ClientState existing) {
        var state = existing;
        if (state != null && connect.cleanStart()) {
            discard(state);
            state = null;
        }
        boolean sessionPresent = state != null;
        if (state == null) {
            state = new ClientState(connect.clientId());
            state.session = newSession(connect.clientId());
            clients.put(connect.clientId(), state);
        }
        var session = state.session;
        if (state.heldDuringTakeover != null) {
            for (var message : state.heldDuringTakeover) session.enqueue(message, false);
            state.heldDuringTakeover = null;
        }
        state.session = null;
        state.connection = connect.connection();
        state.sessionExpiryInterval = connect.sessionExpiryInterval();
        state.waitingTakeover = null;
        state.generation++;  // cancels a pending expiry
        connect.connection().tell(new Connection.Attached(sessionPresent, session));
    }

    private Session newSession(String clientId) {
        return new Session(clientId, settings.maxQueuedMessages(), settings.queueQos0Messages());
    }

    private Behavior<Command> onRelease(Release release) {
        clientIdByConnection.remove(release.connection());
        var state = clients.get(release.clientId());
        if (state == null) return this;
        if (state.connection != release.connection()) {
            // A connection that lost a pending takeover never held the session.
            return this;
        }
        detach(state, release.session(), release.sessionExpiryInterval());
        return this;
    }

    private Behavior<Command> onConnectionStopped(ConnectionStopped stopped) {
        var clientId = clientIdByConnection.remove(stopped.connection());
        if (clientId == null) return this;
        var state = clients.get(clientId);
        if (state != null && state.connection == stopped.connection()) {
            // It stopped without handing its session back (it failed): its in-flight state is lost,
            // its subscriptions are kept for the session's lifetime.
            getContext().getLog().warn("[{}] connection stopped without releasing its session", clientId);
            detach(state, newSession(clientId), state.sessionExpiryInterval);
        }
        return this;
    }

    private void detach(ClientState state, Session session, long sessionExpiryInterval) {
        state.connection = null;
        state.sessionExpiryInterval = sessionExpiryInterval;
        if (state.waitingTakeover != null) {
            var waiting = state.waitingTakeover;
            if (sessionExpiryInterval == 0) {
                discard(state);
                attach(waiting, null);
            } else {
                state.session = session;
                attach(waiting, state);
            }
            return;
        }
        if (sessionExpiryInterval == 0) {
            discard(state);
            return;
        }
        session.dropQueuedQos0();
        state.session = session;
        state.generation++;
        if (sessionExpiryInterval != Session.NEVER_EXPIRES) {
            state.expiresAtNanos = System.nanoTime() + Duration.ofSeconds(sessionExpiryInterval).toNanos();
            scheduleExpiryCheck(state);
        }
    }

    private void scheduleExpiryCheck(ClientState state) {
        long remaining = Math.max(0, state.expiresAtNanos - System.nanoTime());
        var delay = Duration.ofNanos(Math.min(remaining, LONGEST_TIMER.toNanos()));
        timers.startSingleTimer("expiry-" + state.clientId, new SessionExpiryCheck(state.clientId, state.generation), delay);
    }

    private Behavior<Command> onSessionExpiryCheck(SessionExpiryCheck check) {
        var state = clients.get(check.clientId());
        if (state == null || state.generation != check.generation() || state.connection != null) return this;
        if (System.nanoTime() - state.expiresAtNanos >= 0) {
            getContext().getLog().debug("[{}] session expired", check.clientId());
            discard(state);
        } else {
            scheduleExpiryCheck(state);
        }
        return this;
    }

    /** Ends a session: its subscriptions leave the index and its state is forgotten. */
    private void discard(ClientState state) {
        for (var filter : state.subscriptions.keySet()) subscriptions.remove(filter, state.clientId);
        state.subscriptions.clear();
        clients.remove(state.clientId);
    }

    private Behavior<Command> onRoute(Route route) {
        var message = route.message();
        if (message.retain()) retain(message);
        subscriptions.forEachMatch(message.topic(), (filter, clientId, entry) -> {
            var options = entry.options();
            if (options.noLocal() && clientId.equals(route.publisherId())) return;  // [MQTT-3.8.3-3]
            var delivery = deliveries.computeIfAbsent(clientId, id -> new Delivery());
            if (options.maximumQos().value() > delivery.qos.value()) delivery.qos = options.maximumQos();
            delivery.retainAsPublished |= options.retainAsPublished();
            if (entry.subscriptionIdentifier() != 0) {
                if (delivery.subscriptionIdentifiers == null) delivery.subscriptionIdentifiers = new ArrayList<>(1);
                delivery.subscriptionIdentifiers.add(entry.subscriptionIdentifier());
            }
        });
        if (deliveries.isEmpty()) return this;
        for (var entry : deliveries.entrySet()) {
            var delivery = entry.getValue();
            var qos = QoS.min(message.qos(), delivery.qos);  // [MQTT-3.8.4-8] the lower of the two
            // [MQTT-3.3.1-12] retain is cleared unless Retain As Published is set.
            boolean retainFlag = delivery.retainAsPublished && message.retain();
            var properties = message.properties();
            if (delivery.subscriptionIdentifiers != null) {
                var builder = properties.toBuilder();
                delivery.subscriptionIdentifiers.forEach(builder::addSubscriptionIdentifier);
                properties = builder.build();
            }
            deliver(entry.getKey(), message.with(qos, retainFlag, properties));
        }
        deliveries.clear();
        return this;
    }

    private void retain(Message message) {
        if (!settings.retainAvailable()) return;
        if (message.payload().isEmpty()) {
            retained.remove(message.topic());  // [MQTT-3.3.1-6] an empty payload clears it
        } else {
            retained.put(message.topic(), message);  // [MQTT-3.3.1-5] replaces any existing one
        }
    }

    private void deliver(String clientId, Message message) {
        var state = clients.get(clientId);
        if (state == null) return;
        if (state.waitingTakeover != null) {
            if (state.heldDuringTakeover.size() < settings.maxQueuedMessages()) state.heldDuringTakeover.add(message);
        } else if (state.connection != null) {
            state.connection.tell(new Connection.Deliver(message));
        } else if (state.session != null && !state.session.enqueue(message, true)) {
            getContext().getLog().debug("[{}] offline queue full or QoS 0: message on [{}] dropped", clientId, message.topic());
        }
    }

    private Behavior<Command> onSubscribe(Subscribe subscribe) {
        var state = clients.get(subscribe.clientId());
        var retainedToSend = new ArrayList<Message>();
        if (state != null) {
            for (var request : subscribe.requests()) {
                var entry = new SubscriptionEntry(request.options(), request.subscriptionIdentifier());
                var previous = subscriptions.put(request.topicFilter(), subscribe.clientId(), entry);
                state.subscriptions.put(request.topicFilter(), entry);
                int retainHandling = request.options().retainHandling();
                // [MQTT-3.3.1-9] 0: send retained messages; [MQTT-3.3.1-10] 1: only for a new subscription.
                if (retainHandling == 0 || (retainHandling == 1 && previous == null)) {
                    collectRetained(request, retainedToSend);
                }
            }
        }
        subscribe.replyTo().tell(new Connection.Subscribed(subscribe.packetId(), subscribe.reasons(), retainedToSend));
        return this;
    }

    private void collectRetained(SubscribeRequest request, List<Message> into) {
        retained.forEachMatching(request.topicFilter(), (topic, message) -> {
            var properties = message.properties();
            if (request.subscriptionIdentifier() != 0) {
                properties = properties.toBuilder().addSubscriptionIdentifier(request.subscriptionIdentifier()).build();
            }
            // Retained messages sent at subscribe keep the retain flag ([MQTT-3.3.1-8]).
            into.add(message.with(QoS.min(message.qos(), request.options().maximumQos()), true, properties));
        });
    }

    private Behavior<Command> onUnsubscribe(Unsubscribe unsubscribe) {
        var state = clients.get(unsubscribe.clientId());
        var reasons = new ArrayList<ReasonCode>(unsubscribe.topicFilters().size());
        for (var filter : unsubscribe.topicFilters()) {
            boolean existed = state != null && state.subscriptions.remove(filter) != null;
            if (existed) subscriptions.remove(filter, unsubscribe.clientId());
            reasons.add(existed ? ReasonCode.SUCCESS : ReasonCode.NO_SUBSCRIPTION_EXISTED);
        }
        unsubscribe.replyTo().tell(new Connection.Unsubscribed(unsubscribe.packetId(), reasons));
        return this;
    }
}
