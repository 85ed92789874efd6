package io.pekquitto.shards;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.routing.RetainedIndex;
import io.pekquitto.routing.SubscriptionTrie;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionStage;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.ControlMessage.Claim;
import io.pekquitto.shards.mesh.ControlMessage.Ended;
import io.pekquitto.shards.mesh.ControlMessage.HandOver;
import io.pekquitto.shards.mesh.ControlMessage.Handoff;
import io.pekquitto.shards.mesh.ControlMessage.Hello;
import io.pekquitto.shards.mesh.ControlMessage.InterestAdded;
import io.pekquitto.shards.mesh.ControlMessage.InterestRemoved;
import io.pekquitto.shards.mesh.ControlMessage.Joined;
import io.pekquitto.shards.mesh.ControlMessage.Left;
import io.pekquitto.shards.mesh.ControlMessage.MigratedSession;
import io.pekquitto.shards.mesh.ControlMessage.Resync;
import io.pekquitto.shards.mesh.ControlMessage.SharedJoin;
import io.pekquitto.shards.mesh.ControlMessage.Sync;
import io.pekquitto.shards.mesh.ControlMessage.SyncAck;
import io.pekquitto.shards.mesh.DataPlane;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.mesh.Interest;
import io.pekquitto.shards.mesh.SessionDirectory;
import io.pekquitto.shards.mesh.SharedGroups;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscribeRequest;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
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
 * A shard: one single-thread dispatcher that owns a set of client sessions, their subscriptions, a copy
 * of the retained messages and the connection actors (its children, on the same thread). Its indexes
 * are plain single-threaded structures: no locks.
 *
 * <h2>Sessions</h2>
 * A session here is online (its connection actor holds the {@link Session}; the shard routes to the
 * actor), offline (the shard holds the Session and queues into it), or being taken over (a new
 * connection waits for the old one to hand the Session back with {@link Release}; messages routed
 * meanwhile are held for the new one).
 *
 * <h2>The mesh (more than one shard)</h2>
 * A client may connect on any shard. Its home shard ({@link SessionDirectory#homeOf}) records which
 * shard owns its session: a CONNECT becomes a {@link Claim} to the home, which tells the old owner to
 * hand the session over ({@link HandOver}); the owner closes the old connection and sends the session,
 * its subscriptions and its queued and in-flight messages to the claimant ({@link Handoff}). Each shard
 * announces the filters it has subscribers for ({@link Interest}), and a publish is routed locally and
 * forwarded, batched, to the shards with matching filters ({@link DataPlane}); retained messages go to
 * every shard, each keeping a copy of the index (the payloads are shared, not copied). Shared
 * subscriptions are replicated on every shard ({@link SharedGroups}); the publishing shard picks the
 * member. A SUBSCRIBE is answered only once every peer has applied its announcements (a {@link Sync}
 * barrier), so a message published after the SUBACK reaches the new subscription from any shard.
 * A single-shard broker skips all of it.
 */
public final class Shard extends AbstractBehavior<Shard.Command> {

    public sealed interface Command {}

    /** A new TCP connection from a listener, to be served by this shard. */
    public record Accept(Tcp.IncomingConnection connection) implements Command {}

    /** From the Broker: this shard's index and every shard of the broker, itself included. */
    public record Peers(int index, List<ActorRef<Command>> shards) implements Command {}

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

    /**
     * A connection's queue is filling faster than its client acknowledges (or has drained again): while
     * any connection here is congested, publishers here stop reading and peers' batches wait for their
     * acknowledgement, so QoS 1/2 messages are slowed down instead of dropped.
     */
    public record Congestion(ActorRef<Connection.Command> connection, boolean congested) implements Command {}

    /** The connection has ended; the session goes back to the shard (or ends, with expiry 0). */
    public record Release(String clientId, ActorRef<Connection.Command> connection, Session session,
                          long sessionExpiryInterval, Optional<DelayedWill> will) implements Command {}

    /** A Will Message with a Will Delay Interval, in seconds (3.1.3.2.2). */
    public record DelayedWill(Message message, long delaySeconds) {}

    /** A delivery that reached a connection after it had released its session: to be delivered again. */
    public record Bounce(ActorRef<Connection.Command> connection, Message message) implements Command {}

    /** A released connection has bounced everything: its client's held deliveries may go on. */
    public record Drained(ActorRef<Connection.Command> connection) implements Command {}

    /** Data plane: a batch of publishes forwarded by shard {@code from}. */
    public record Forward(int from, List<Forwarded> items) implements Command {}

    /** Data plane: shard {@code from} has processed one of our batches (a credit back). */
    public record ForwardAck(int from) implements Command {}

    /** Control plane: a message from shard {@code from}, in send order per pair. */
    public record Control(int from, ControlMessage message) implements Command {}

    /** Test hook for the supervision tests: the shard throws, and its supervisor restarts it. */
    public enum InjectFailure implements Command { INSTANCE }

    private record ConnectionStopped(ActorRef<Connection.Command> connection) implements Command {}

    private record SessionExpiryCheck(String clientId, long generation) implements Command {}

    private record WillDelayExpired(String clientId, long generation) implements Command {}

    /** Sent to self when the first delivery or forward of a turn is queued: all of the turn goes out in batches. */
    private enum Flush implements Command { INSTANCE }

    /** Pekko's scheduler cannot hold timers of years; long expiries are checked in steps of this. */
    private static final Duration LONGEST_TIMER = Duration.ofDays(7);

    private final BrokerSettings settings;
    private final String dispatcher;
    private final TimerScheduler<Command> timers;
    private final Materializer materializer;
    private final AtomicIntegerArray connectionsPerShard;
    private final Map<String, ClientState> clients = new HashMap<>();
    private final Map<ActorRef<Connection.Command>, String> clientIdByConnection = new HashMap<>();
    private final SubscriptionTrie<String, SubscriptionEntry> subscriptions = new SubscriptionTrie<>();
    private final RetainedIndex<Message> retained = new RetainedIndex<>();
    /**
     * What a topic matches here, computed from the indexes once and reused until any of them changes:
     * publishes repeat their topics, and a trie walk per publish (twice with the mesh) is the hot path.
     * Cleared on every subscription, interest or membership change, and when it holds too many topics.
     */
    private final Map<String, Matches> routes = new HashMap<>();
    private static final int ROUTE_CACHE_LIMIT = 10_000;

    /** Per-publish scratch: one delivery per client however many of its subscriptions match. */
    private final Map<String, Delivery> deliveries = new HashMap<>();
    /** Deliveries of this turn per connection, sent as one message each at the next {@link Flush}. */
    private final Map<ActorRef<Connection.Command>, List<Message>> outgoing = new HashMap<>();
    private long connectionSequence;

    // The mesh; with one shard, peers is just this shard and none of it is used.
    private int index;
    private List<ActorRef<Command>> peers = List.of();
    private DataPlane dataPlane = new DataPlane(1);
    private boolean[] destinations = new boolean[1];
    private boolean flushScheduled;
    private final List<Transport> pausedReaders = new ArrayList<>();
    private final Set<ActorRef<Connection.Command>> congested = new HashSet<>();
    /** Peers whose batch acknowledgements wait for a congestion here to end. */
    private final List<Integer> postponedAcks = new ArrayList<>();
    private final Interest interest = new Interest();
    private final SharedGroups shared = new SharedGroups();
    private final SessionDirectory directory = new SessionDirectory();
    /** CONNECTs waiting for the home shard's answer to our claim, by client id. */
    private final Map<String, Connect> claims = new HashMap<>();
    /** Claims overtaken by a later claim elsewhere: pass the session on to that shard when it comes. */
    private final Map<String, Integer> passOnTo = new HashMap<>();
    private final Map<Long, Barrier> barriers = new HashMap<>();
    /** Released connections whose in-transit deliveries are still coming back, by connection and client. */
    private final Map<ActorRef<Connection.Command>, Draining> drainingByConnection = new HashMap<>();
    private final Map<String, Draining> drainingByClient = new HashMap<>();
    private long nextToken;

    /** What the shard knows of one client id. */
    private static final class ClientState {
        final String clientId;
        final Map<String, SubscriptionEntry> subscriptions = new HashMap<>();
        ActorRef<Connection.Command> connection;
        Session session;
        long sessionExpiryInterval;
        Connect waitingTakeover;
        List<Message> heldDuringTakeover;
        int handOverTo = SessionDirectory.NONE;
        /** A will waiting for its delay, the session's end, or a new connection that cancels it. */
        Message pendingWill;
        long generation;
        long expiresAtNanos;

        ClientState(String clientId) { this.clientId = clientId; }

        boolean isOffline() { return connection == null && waitingTakeover == null; }
    }

    /** One matching subscription. */
    private record Match(String clientId, SubscriptionEntry entry) {}

    /**
     * The matches of one topic: local subscriptions ({@code uniqueClients} when no client has two of
     * them, so no aggregation is needed), the peers with matching filters, the matching shared groups.
     */
    private record Matches(List<Match> local, boolean uniqueClients, int[] remoteShards, List<SharedGroups.Group> groups) {}

    /** The aggregate of one client's matching subscriptions for one message. */
    private static final class Delivery {
        QoS qos = QoS.AT_MOST_ONCE;
        boolean retainAsPublished;
        List<Integer> subscriptionIdentifiers;
    }

    /**
     * A connection that released its session while deliveries to it were in transit. Until it has
     * bounced them ({@link Drained}), new deliveries for the client wait here, so none is lost and the
     * order holds: bounced ones first, then those held.
     */
    private static final class Draining {
        final String clientId;
        final List<Message> bounced = new ArrayList<>();
        final List<Message> held = new ArrayList<>();
        int movedTo = SessionDirectory.NONE;

        Draining(String clientId) { this.clientId = clientId; }
    }

    /** A continuation waiting for every peer to acknowledge a {@link Sync}. */
    private static final class Barrier {
        int waiting;
        final Runnable then;

        Barrier(int waiting, Runnable then) {
            this.waiting = waiting;
            this.then = then;
        }
    }

    /**
     * @param mesh                 the broker's shards, set once all are spawned; a restarted shard reads it
     * @param connectionsPerShard  live connections per shard, for the least-connections placement
     */
    public static Behavior<Command> create(BrokerSettings settings, String dispatcher,
                                           AtomicReference<List<ActorRef<Command>>> mesh,
                                           AtomicIntegerArray connectionsPerShard) {
        return Behaviors.setup(context -> Behaviors.withTimers(
                timers -> new Shard(context, timers, settings, dispatcher, mesh, connectionsPerShard)));
    }

    /** A shard alone, for tests. */
    public static Behavior<Command> create(BrokerSettings settings, String dispatcher) {
        return create(settings, dispatcher, new AtomicReference<>(), new AtomicIntegerArray(1));
    }

    private Shard(ActorContext<Command> context, TimerScheduler<Command> timers, BrokerSettings settings,
                  String dispatcher, AtomicReference<List<ActorRef<Command>>> mesh,
                  AtomicIntegerArray connectionsPerShard) {
        super(context);
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.timers = timers;
        this.connectionsPerShard = connectionsPerShard;
        this.materializer = Materializer.createMaterializer(context);
        var shards = mesh.get();
        if (shards != null) joinMesh(shards.indexOf(context.getSelf()), shards);  // restarted by the supervisor
    }

    private boolean isMesh() { return peers.size() > 1; }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Accept.class, this::onAccept)
                .onMessage(Peers.class, peersMessage -> {
                    joinMesh(peersMessage.index(), peersMessage.shards());
                    return this;
                })
                .onMessage(Connect.class, this::onConnect)
                .onMessage(Route.class, this::onRoute)
                .onMessage(Subscribe.class, this::onSubscribe)
                .onMessage(Unsubscribe.class, this::onUnsubscribe)
                .onMessage(ResumeReading.class, this::onResumeReading)
                .onMessage(Congestion.class, this::onCongestion)
                .onMessage(Release.class, this::onRelease)
                .onMessage(Bounce.class, this::onBounce)
                .onMessage(Drained.class, drained -> {
                    finishDraining(drained.connection());
                    return this;
                })
                .onMessage(Forward.class, this::onForward)
                .onMessage(ForwardAck.class, this::onForwardAck)
                .onMessage(Control.class, this::onControl)
                .onMessageEquals(Flush.INSTANCE, this::onFlush)
                .onMessageEquals(InjectFailure.INSTANCE, () -> {
                    throw new IllegalStateException("failure injected into shard-" + index);
                })
                .onMessage(ConnectionStopped.class, this::onConnectionStopped)
                .onMessage(SessionExpiryCheck.class, this::onSessionExpiryCheck)
                .onMessage(WillDelayExpired.class, this::onWillDelayExpired)
                .build();
    }

    // ---- connections

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
        clientIdByConnection.put(connect.connection(), connect.clientId());
        if (!isMesh()) {
            connectLocally(connect);
            return this;
        }
        var previous = claims.put(connect.clientId(), connect);
        if (previous != null) {
            // A second CONNECT here while our claim is out: the claim stands, the first connection loses.
            if (previous.connection() != null) previous.connection().tell(Connection.TakenOver.INSTANCE);
            return this;
        }
        control(SessionDirectory.homeOf(connect.clientId(), peers.size()), new Claim(connect.clientId()));
        return this;
    }

    /** CONNECT for a client whose session, if any, is on this shard. */
    private void connectLocally(Connect connect) {
        var state = clients.get(connect.clientId());
        if (state != null && (state.connection != null || state.waitingTakeover != null)) {
            // [MQTT-3.1.4-3] the existing connection is closed; it hands the session back first.
            if (state.waitingTakeover != null) {
                state.waitingTakeover.connection().tell(Connection.TakenOver.INSTANCE);  // a third one: the waiting one loses
            } else {
                state.connection.tell(Connection.TakenOver.INSTANCE);
                state.heldDuringTakeover = new ArrayList<>();
            }
            state.waitingTakeover = connect;
            return;
        }
        attach(connect, state);
    }

    private void attach(Connect connect, ClientState existing) {
        var state = existing;
        if (state != null && connect.cleanStart()) {
            discard(state, false);
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
        state.pendingWill = null;  // [MQTT-3.1.3-9] a new connection before the Will Delay: no will
        state.connection = connect.connection();
        state.sessionExpiryInterval = connect.sessionExpiryInterval();
        state.waitingTakeover = null;
        state.generation++;  // cancels a pending expiry
        connect.connection().tell(new Connection.Attached(sessionPresent, session));
    }

    private Session newSession(String clientId) {
        return new Session(clientId, settings.maxQueuedMessages(), settings.maxQueuedBytes(), settings.queueQos0Messages());
    }

    private Behavior<Command> onRelease(Release release) {
        clientIdByConnection.remove(release.connection());
        var state = clients.get(release.clientId());
        if (state != null && state.connection == release.connection()) {
            var draining = new Draining(release.clientId());
            var unsent = outgoing.remove(release.connection());
            if (unsent != null) draining.bounced.addAll(unsent);  // never left: they come first
            drainingByConnection.put(release.connection(), draining);
            drainingByClient.put(release.clientId(), draining);
            release.will().ifPresent(will -> delayWill(state, will));
            detach(state, release.session(), release.sessionExpiryInterval());
        } else {
            release.will().ifPresent(will -> routeMessage(release.clientId(), will.message()));
        }
        // Everything we sent it before this reaches it first, and comes back as a Bounce.
        release.connection().tell(Connection.ReleaseConfirmed.INSTANCE);
        return this;
    }

    private Behavior<Command> onBounce(Bounce bounce) {
        var draining = drainingByConnection.get(bounce.connection());
        if (draining != null) draining.bounced.add(bounce.message());
        return this;
    }

    private void finishDraining(ActorRef<Connection.Command> connection) {
        var draining = drainingByConnection.remove(connection);
        if (draining == null) return;
        drainingByClient.remove(draining.clientId);
        for (var message : draining.bounced) redeliver(draining, message);
        for (var message : draining.held) redeliver(draining, message);
    }

    private void redeliver(Draining draining, Message message) {
        if (draining.movedTo != SessionDirectory.NONE && !clients.containsKey(draining.clientId)) {
            forward(draining.movedTo, new Forwarded("", message, draining.clientId, null));
        } else {
            deliver(draining.clientId, message);
        }
    }

    private Behavior<Command> onConnectionStopped(ConnectionStopped stopped) {
        connectionsPerShard.decrementAndGet(index);
        if (congested.remove(stopped.connection())) relieve();
        finishDraining(stopped.connection());  // if it failed before draining: what it bounced is kept
        var clientId = clientIdByConnection.remove(stopped.connection());
        if (clientId == null) return this;
        var claim = claims.get(clientId);
        if (claim != null && claim.connection().equals(stopped.connection())) {
            claims.put(clientId, new Connect(clientId, false, 0, null));  // keep the claim: the session still comes here
            return this;
        }
        var state = clients.get(clientId);
        if (state != null && stopped.connection().equals(state.connection)) {
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
        state.session = session;
        if (state.handOverTo != SessionDirectory.NONE) {
            migrateOut(state, state.handOverTo);
            return;
        }
        if (state.waitingTakeover != null) {
            var waiting = state.waitingTakeover;
            if (sessionExpiryInterval == 0) {
                discard(state, true);
                attach(waiting, null);
            } else {
                attach(waiting, state);
            }
            return;
        }
        if (sessionExpiryInterval == 0) {
            discard(state, true);
            return;
        }
        session.dropQueuedQos0();
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
        if (state == null || state.generation != check.generation() || !state.isOffline()) return this;
        if (System.nanoTime() - state.expiresAtNanos >= 0) {
            getContext().getLog().debug("[{}] session expired", check.clientId());
            discard(state, true);
        } else {
            scheduleExpiryCheck(state);
        }
        return this;
    }

    /**
     * Ends a session: its subscriptions leave the indexes, messages of shared subscriptions go to other
     * members, its home shard is told (unless a new connection takes the client id over right away).
     */
    private void discard(ClientState state, boolean tellHome) {
        if (state.pendingWill != null) {
            var will = state.pendingWill;
            state.pendingWill = null;
            routeMessage(state.clientId, will);  // the session ends before the delay: the will goes now
        }
        for (var entry : state.subscriptions.entrySet()) unsubscribeLocally(state.clientId, entry.getKey());
        state.subscriptions.clear();
        clients.remove(state.clientId);
        if (state.session != null) {
            for (var message : state.session.takeSharedMessages()) redeliverShared(message, state.clientId);
        }
        // With a claim of ours on its way, the home is about to record us as owner again: no Ended then.
        if (tellHome && isMesh() && !claims.containsKey(state.clientId)) {
            control(SessionDirectory.homeOf(state.clientId, peers.size()), new Ended(state.clientId));
        }
    }

    // ---- routing

    private Behavior<Command> onRoute(Route route) {
        routeMessage(route.publisherId(), route.message());
        return this;
    }

    /** Retains, delivers here, picks shared members, and forwards to the shards with matching filters. */
    private void routeMessage(String publisherId, Message message) {
        if (message.retain()) retain(message);
        var route = routeFor(message.topic());
        deliverLocally(publisherId, message, route);
        for (var group : route.groups()) deliverShared(group, publisherId, message);
        if (!isMesh()) return;
        if (message.retain()) {
            // Every shard keeps a copy of the retained messages.
            for (int shard = 0; shard < peers.size(); shard++) {
                if (shard != index) forward(shard, new Forwarded(publisherId, message, null, null));
            }
        } else {
            for (int shard : route.remoteShards()) forward(shard, new Forwarded(publisherId, message, null, null));
        }
    }

    private Matches routeFor(String topic) {
        var route = routes.get(topic);
        if (route != null) return route;
        if (routes.size() >= ROUTE_CACHE_LIMIT) routes.clear();
        var local = new ArrayList<Match>(2);
        subscriptions.forEachMatch(topic, (filter, clientId, entry) -> local.add(new Match(clientId, entry)));
        var clientIds = new HashSet<String>();
        boolean unique = true;
        for (var match : local) unique &= clientIds.add(match.clientId());
        int[] remote = new int[0];
        if (isMesh()) {
            interest.remoteShardsFor(topic, destinations);
            int count = 0;
            for (boolean d : destinations) if (d) count++;
            remote = new int[count];
            for (int shard = 0, i = 0; shard < destinations.length; shard++) if (destinations[shard]) remote[i++] = shard;
            Arrays.fill(destinations, false);
        }
        var groups = new ArrayList<SharedGroups.Group>(0);
        shared.forEachMatch(topic, groups::add);
        route = new Matches(List.copyOf(local), unique, remote, List.copyOf(groups));
        routes.put(topic, route);
        return route;
    }

    /** The indexes changed: routes must be computed again. */
    private void indexesChanged() {
        routes.clear();
    }

    /** Keeps a delayed will until min(Will Delay Interval, Session Expiry Interval) (3.1.3.2.2). */
    private void delayWill(ClientState state, DelayedWill will) {
        state.pendingWill = will.message();
        var delay = Duration.ofSeconds(Math.min(will.delaySeconds(), LONGEST_TIMER.toSeconds()));
        // The generation after detach: a later attach or detach moves it on and the timer is stale.
        timers.startSingleTimer("will-" + state.clientId, new WillDelayExpired(state.clientId, state.generation + 1), delay);
    }

    private Behavior<Command> onWillDelayExpired(WillDelayExpired expired) {
        var state = clients.get(expired.clientId());
        if (state == null || state.generation != expired.generation() || state.pendingWill == null) return this;
        var will = state.pendingWill;
        state.pendingWill = null;
        routeMessage(state.clientId, will);
        return this;
    }

    /** Delivers to this shard's own subscribers: one delivery per client, the spec's overlap rules. */
    private void deliverLocally(String publisherId, Message message, Matches route) {
        if (route.uniqueClients()) {
            // The common case: each client matches once, its delivery is its subscription's.
            for (var match : route.local()) {
                var options = match.entry().options();
                if (options.noLocal() && match.clientId().equals(publisherId)) continue;  // [MQTT-3.8.3-3]
                var properties = message.properties();
                if (match.entry().subscriptionIdentifier() != 0) {
                    properties = properties.toBuilder().addSubscriptionIdentifier(match.entry().subscriptionIdentifier()).build();
                }
                deliver(match.clientId(), message.with(QoS.min(message.qos(), options.maximumQos()),
                        options.retainAsPublished() && message.retain(), properties));
            }
            return;
        }
        for (var match : route.local()) {
            var clientId = match.clientId();
            var entry = match.entry();
            var options = entry.options();
            if (options.noLocal() && clientId.equals(publisherId)) continue;  // [MQTT-3.8.3-3]
            var delivery = deliveries.computeIfAbsent(clientId, id -> new Delivery());
            if (options.maximumQos().value() > delivery.qos.value()) delivery.qos = options.maximumQos();
            delivery.retainAsPublished |= options.retainAsPublished();
            if (entry.subscriptionIdentifier() != 0) {
                if (delivery.subscriptionIdentifiers == null) delivery.subscriptionIdentifiers = new ArrayList<>(1);
                delivery.subscriptionIdentifiers.add(entry.subscriptionIdentifier());
            }
        }
        if (deliveries.isEmpty()) return;
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
    }

    /** Picks one member of a matching shared group, round-robin across all shards (4.8.2). */
    private void deliverShared(SharedGroups.Group group, String publisherId, Message message) {
        var member = group.next(null);
        if (member != null) sendToMember(group, member, publisherId, message);
    }

    private void sendToMember(SharedGroups.Group group, SharedGroups.Member member, String publisherId, Message message) {
        if (member.shard() == index) {
            deliverToMember(group, member, message);
        } else {
            forward(member.shard(), new Forwarded(publisherId, message, member.clientId(), group.sharedFilter()));
        }
    }

    private void deliverToMember(SharedGroups.Group group, SharedGroups.Member member, Message message) {
        var options = member.entry().options();
        var properties = message.properties();
        if (member.entry().subscriptionIdentifier() != 0) {
            properties = properties.toBuilder().addSubscriptionIdentifier(member.entry().subscriptionIdentifier()).build();
        }
        var qos = QoS.min(message.qos(), options.maximumQos());
        deliver(member.clientId(), message.with(qos, options.retainAsPublished() && message.retain(), properties)
                .viaShared(group.sharedFilter()));
    }

    /** A shared message whose member is gone (session ended, or moved): another member gets it. */
    private void redeliverShared(Message message, String goneClientId) {
        var sharedFilter = message.sharedFilter();
        var group = shared.ofSharedFilter(sharedFilter);
        if (group == null) return;  // nobody left in the group: the message has no subscriber
        var member = group.next(goneClientId);
        if (member != null) sendToMember(group, member, "", message.viaShared(""));
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
        var draining = drainingByClient.get(clientId);
        if (draining != null) {
            draining.held.add(message);
            return;
        }
        var state = clients.get(clientId);
        if (state == null) {
            if (message.isShared()) redeliverShared(message, clientId);
            return;
        }
        if (state.waitingTakeover != null) {
            if (state.heldDuringTakeover.size() < settings.maxQueuedMessages()) state.heldDuringTakeover.add(message);
        } else if (state.connection != null) {
            var batch = outgoing.get(state.connection);
            if (batch == null) {
                outgoing.put(state.connection, batch = new ArrayList<>());
                scheduleFlush();
            }
            batch.add(message);
        } else if (state.session != null && !state.session.enqueue(message, true)) {
            getContext().getLog().debug("[{}] offline queue full or QoS 0: message on [{}] dropped", clientId, message.topic());
        }
    }

    // ---- data plane

    private void forward(int shard, Forwarded item) {
        if (dataPlane.add(shard, item)) scheduleFlush();
    }

    /** Everything already in our mailbox is handled before the flush: batches form by themselves. */
    private void scheduleFlush() {
        if (flushScheduled) return;
        flushScheduled = true;
        getContext().getSelf().tell(Flush.INSTANCE);
    }

    private Behavior<Command> onFlush() {
        flushScheduled = false;
        for (var entry : outgoing.entrySet()) entry.getKey().tell(new Connection.Deliver(entry.getValue()));
        outgoing.clear();
        dataPlane.flush(this::sendBatch);
        return this;
    }

    /** Sends a connection what is batched for it, before a message that must come after. */
    private void flushTo(ActorRef<Connection.Command> connection) {
        var batch = outgoing.remove(connection);
        if (batch != null) connection.tell(new Connection.Deliver(batch));
    }

    private void sendBatch(int destination, List<Forwarded> batch) {
        peers.get(destination).tell(new Forward(index, batch));
    }

    private Behavior<Command> onForward(Forward forward) {
        for (var item : forward.items()) {
            var message = item.message();
            if (item.targetClientId() != null && item.sharedGroup() == null) {
                deliver(item.targetClientId(), message);  // a delivery that followed its session here
                continue;
            }
            if (item.targetClientId() != null) {
                var group = shared.ofSharedFilter(item.sharedGroup());
                var state = clients.get(item.targetClientId());
                if (group != null && state != null) {
                    var member = findMember(group, item.targetClientId());
                    if (member != null) {
                        deliverToMember(group, member, message);
                        continue;
                    }
                }
                // The chosen member left or moved while the message travelled: pick another one.
                if (group != null) {
                    var other = group.next(item.targetClientId());
                    if (other != null) sendToMember(group, other, item.publisherId(), message);
                }
                continue;
            }
            if (message.retain()) retain(message);
            deliverLocally(item.publisherId(), message, routeFor(message.topic()));
        }
        if (congested.isEmpty()) {
            peers.get(forward.from()).tell(new ForwardAck(index));
        } else {
            postponedAcks.add(forward.from());  // the peer's window fills and it slows its publishers
        }
        return this;
    }

    private static SharedGroups.Member findMember(SharedGroups.Group group, String clientId) {
        for (var member : group.members()) if (member.clientId().equals(clientId)) return member;
        return null;
    }

    private Behavior<Command> onForwardAck(ForwardAck ack) {
        dataPlane.acknowledged(ack.from());
        dataPlane.flush(this::sendBatch);
        resumeReadersIfRelieved();
        return this;
    }

    private Behavior<Command> onResumeReading(ResumeReading resume) {
        if (dataPlane.isOverloaded() || !congested.isEmpty()) {
            pausedReaders.add(resume.transport());  // QoS 1/2 is never dropped: the publisher waits
        } else {
            resume.transport().readMore();
        }
        return this;
    }

    private Behavior<Command> onCongestion(Congestion congestion) {
        if (congestion.congested()) {
            congested.add(congestion.connection());
        } else {
            congested.remove(congestion.connection());
            relieve();
        }
        return this;
    }

    /** Once nothing here is congested: peers get their postponed acknowledgements, publishers read again. */
    private void relieve() {
        if (!congested.isEmpty()) return;
        for (var peer : postponedAcks) peers.get(peer).tell(new ForwardAck(index));
        postponedAcks.clear();
        resumeReadersIfRelieved();
    }

    private void resumeReadersIfRelieved() {
        if (pausedReaders.isEmpty() || !congested.isEmpty() || !dataPlane.isBelowLowWater()) return;
        pausedReaders.forEach(Transport::readMore);
        pausedReaders.clear();
    }

    // ---- subscriptions

    private Behavior<Command> onSubscribe(Subscribe subscribe) {
        var state = clients.get(subscribe.clientId());
        var retainedToSend = new ArrayList<Message>();
        if (state != null) {
            for (var request : subscribe.requests()) {
                var entry = new SubscriptionEntry(request.options(), request.subscriptionIdentifier());
                var previous = subscribeLocally(subscribe.clientId(), request.topicFilter(), entry);
                state.subscriptions.put(request.topicFilter(), entry);
                if (TopicFilter.isShared(request.topicFilter())) continue;  // no retained messages for shared ones
                int retainHandling = request.options().retainHandling();
                // [MQTT-3.3.1-9] 0: send retained messages; [MQTT-3.3.1-10] 1: only for a new subscription.
                if (retainHandling == 0 || (retainHandling == 1 && previous == null)) {
                    collectRetained(request, retainedToSend);
                }
            }
        }
        var reply = new Connection.Subscribed(subscribe.packetId(), subscribe.reasons(), retainedToSend);
        afterPeersApplied(() -> {
            flushTo(subscribe.replyTo());
            subscribe.replyTo().tell(reply);
        });
        return this;
    }

    /** Adds a subscription to the local indexes and announces what peers must know; returns the previous entry. */
    private SubscriptionEntry subscribeLocally(String clientId, String topicFilter, SubscriptionEntry entry) {
        if (TopicFilter.isShared(topicFilter)) {
            var group = TopicFilter.shareGroup(topicFilter);
            var filter = TopicFilter.sharedFilterTopic(topicFilter);
            var existing = shared.get(group, filter);
            var previous = existing == null ? null : findMember(existing, clientId);
            var member = new SharedGroups.Member(clientId, index, entry);
            shared.join(group, filter, member);
            indexesChanged();
            broadcast(new Joined(group, filter, member));
            return previous == null ? null : previous.entry();
        }
        var previous = subscriptions.put(topicFilter, clientId, entry);
        indexesChanged();
        if (previous == null && interest.addLocal(topicFilter)) broadcast(new InterestAdded(topicFilter));
        return previous;
    }

    private void unsubscribeLocally(String clientId, String topicFilter) {
        if (TopicFilter.isShared(topicFilter)) {
            var group = TopicFilter.shareGroup(topicFilter);
            var filter = TopicFilter.sharedFilterTopic(topicFilter);
            shared.leave(group, filter, clientId);
            indexesChanged();
            broadcast(new Left(group, filter, clientId));
            return;
        }
        indexesChanged();
        if (subscriptions.remove(topicFilter, clientId) != null && interest.removeLocal(topicFilter)) {
            broadcast(new InterestRemoved(topicFilter));
        }
    }

    private void collectRetained(SubscribeRequest request, List<Message> into) {
        long now = System.nanoTime();
        retained.forEachMatching(request.topicFilter(), (topic, message) -> {
            if (message.isExpired(now)) {
                retained.remove(topic);  // a retained message expires with its Message Expiry Interval
                return;
            }
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
            if (existed) unsubscribeLocally(unsubscribe.clientId(), filter);
            reasons.add(existed ? ReasonCode.SUCCESS : ReasonCode.NO_SUBSCRIPTION_EXISTED);
        }
        flushTo(unsubscribe.replyTo());  // deliveries routed before the UNSUBSCRIBE go before its UNSUBACK
        unsubscribe.replyTo().tell(new Connection.Unsubscribed(unsubscribe.packetId(), reasons));
        return this;
    }

    // ---- control plane

    private void joinMesh(int newIndex, List<ActorRef<Command>> shards) {
        index = newIndex;
        peers = List.copyOf(shards);
        dataPlane = new DataPlane(peers.size());
        destinations = new boolean[peers.size()];
        if (isMesh()) broadcast(new Hello());
    }

    private void control(int shard, ControlMessage message) {
        peers.get(shard).tell(new Control(index, message));
    }

    private void broadcast(ControlMessage message) {
        for (int shard = 0; shard < peers.size(); shard++) if (shard != index) control(shard, message);
    }

    /** Runs {@code then} once every peer has applied what this shard sent it so far. */
    private void afterPeersApplied(Runnable then) {
        if (!isMesh()) {
            then.run();
            return;
        }
        long token = ++nextToken;
        barriers.put(token, new Barrier(peers.size() - 1, then));
        broadcast(new Sync(token));
    }

    private Behavior<Command> onControl(Control control) {
        int from = control.from();
        var message = control.message();
        // Only what a peer announces about filters and members changes what a topic matches here.
        if (message instanceof InterestAdded || message instanceof InterestRemoved || message instanceof Joined
                || message instanceof Left || message instanceof Hello || message instanceof Resync) {
            indexesChanged();
        }
        if (message instanceof InterestAdded added) {
            interest.addRemote(added.filter(), from);
        } else if (message instanceof InterestRemoved removed) {
            interest.removeRemote(removed.filter(), from);
        } else if (message instanceof Joined joined) {
            shared.join(joined.group(), joined.filter(), joined.member());
        } else if (message instanceof Left left) {
            shared.leave(left.group(), left.filter(), left.clientId());
        } else if (message instanceof Sync sync) {
            control(from, new SyncAck(sync.token()));
        } else if (message instanceof SyncAck ack) {
            onSyncAck(ack);
        } else if (message instanceof Claim claim) {
            onClaim(from, claim.clientId());
        } else if (message instanceof HandOver handOver) {
            onHandOver(handOver.clientId(), handOver.to());
        } else if (message instanceof Handoff handoff) {
            onHandoff(handoff);
        } else if (message instanceof Ended ended) {
            directory.ended(ended.clientId(), from);
        } else if (message instanceof Hello) {
            onHello(from);
        } else if (message instanceof Resync resync) {
            resync.filters().forEach(filter -> interest.addRemote(filter, from));
            resync.members().forEach(join -> shared.join(join.group(), join.filter(), join.member()));
            resync.ownedClientIds().forEach(clientId -> directory.restore(clientId, from));
        }
        return this;
    }

    private void onSyncAck(SyncAck ack) {
        var barrier = barriers.get(ack.token());
        if (barrier == null) return;
        if (--barrier.waiting == 0) {
            barriers.remove(ack.token());
            barrier.then.run();
        }
    }

    /** At the home shard: record the claimant as owner; the previous owner hands the session over. */
    private void onClaim(int claimant, String clientId) {
        int previous = directory.claim(clientId, claimant);
        if (previous == SessionDirectory.NONE) {
            control(claimant, new Handoff(clientId, null, false));
        } else if (previous == claimant) {
            control(claimant, new Handoff(clientId, null, true));
        } else {
            control(previous, new HandOver(clientId, claimant));
        }
    }

    /** At the owner: close the client's connection here, and send its session to {@code to}. */
    private void onHandOver(String clientId, int to) {
        if (claims.containsKey(clientId)) {
            // Our own claim is still on its way: when the session reaches us, it goes on to the later claimant.
            var overtaken = claims.remove(clientId);
            if (overtaken.connection() != null) overtaken.connection().tell(Connection.TakenOver.INSTANCE);
            passOnTo.put(clientId, to);
            return;
        }
        var state = clients.get(clientId);
        if (state == null) {
            control(to, new Handoff(clientId, null, false));
            return;
        }
        state.handOverTo = to;
        if (state.waitingTakeover != null) {
            state.waitingTakeover.connection().tell(Connection.TakenOver.INSTANCE);
            state.waitingTakeover = null;
            requeueHeld(state);
            if (state.connection == null) migrateOut(state, to);
        } else if (state.connection != null) {
            state.connection.tell(Connection.TakenOver.INSTANCE);  // the session follows its Release
        } else {
            migrateOut(state, to);
        }
    }

    private void requeueHeld(ClientState state) {
        if (state.heldDuringTakeover == null) return;
        if (state.session != null) for (var message : state.heldDuringTakeover) state.session.enqueue(message, false);
        state.heldDuringTakeover = null;
    }

    /** Sends a session to another shard; its subscriptions leave this shard's indexes. */
    private void migrateOut(ClientState state, int to) {
        state.pendingWill = null;  // the client has connected again, on another shard
        MigratedSession migrated = null;
        if (state.sessionExpiryInterval != 0 && state.session != null) {
            requeueHeld(state);
            migrated = new MigratedSession(state.session, Map.copyOf(state.subscriptions), state.sessionExpiryInterval);
            for (var filter : state.subscriptions.keySet()) unsubscribeLocally(state.clientId, filter);
            state.subscriptions.clear();
            clients.remove(state.clientId);
        } else {
            discard(state, false);
        }
        control(to, new Handoff(state.clientId, migrated, false));
        var draining = drainingByClient.get(state.clientId);
        if (draining != null) draining.movedTo = to;  // its bounced deliveries follow the session
    }

    /** At the claimant: the session (or its absence) arrived; attach the waiting connection. */
    private void onHandoff(Handoff handoff) {
        var clientId = handoff.clientId();
        var passOn = passOnTo.remove(clientId);
        if (passOn != null) {
            if (handoff.local()) {
                var state = clients.get(clientId);
                if (state != null) {
                    onHandOver(clientId, passOn);
                    return;
                }
            }
            control(passOn, new Handoff(clientId, handoff.session(), false));
            return;
        }
        var connect = claims.remove(clientId);
        if (handoff.local()) {
            if (connect != null && connect.connection() != null) connectLocally(connect);
            return;
        }
        ClientState state = null;
        if (handoff.session() != null) {
            state = install(clientId, handoff.session());
        }
        if (connect == null || connect.connection() == null) {
            // The claiming connection is gone: keep the session here, offline, as its owner.
            if (state != null) detach(state, state.session, state.sessionExpiryInterval);
            else control(SessionDirectory.homeOf(clientId, peers.size()), new Ended(clientId));
            return;
        }
        if (state == null) {
            attach(connect, null);
            return;
        }
        // CONNACK once peers know the moved subscriptions, so messages published after it reach them.
        var installed = state;
        afterPeersApplied(() -> attachIfStillHere(connect, installed));
    }

    private void attachIfStillHere(Connect connect, ClientState state) {
        if (clients.get(connect.clientId()) != state || !state.isOffline()) {
            // Claimed again meanwhile (handed on to another shard, or attached to a newer connection here).
            connect.connection().tell(Connection.TakenOver.INSTANCE);
            return;
        }
        attach(connect, state);
    }

    /** A migrated session arrives: its subscriptions enter this shard's indexes, announced to peers. */
    private ClientState install(String clientId, MigratedSession migrated) {
        var state = new ClientState(clientId);
        state.session = migrated.session();
        state.sessionExpiryInterval = migrated.sessionExpiryInterval();
        clients.put(clientId, state);
        for (var entry : migrated.subscriptions().entrySet()) {
            state.subscriptions.put(entry.getKey(), entry.getValue());
            subscribeLocally(clientId, entry.getKey(), entry.getValue());
        }
        return state;
    }

    /** A peer (re)started with empty state: forget what it told us, and tell it what it must know of us. */
    private void onHello(int from) {
        interest.forgetShard(from);
        shared.forgetShard(from);
        directory.forgetOwner(from);
        dataPlane.reset(from);
        var members = new ArrayList<SharedJoin>();
        shared.forEachMemberOn(index, (group, member) -> members.add(new SharedJoin(group.name(), group.filter(), member)));
        var owned = new ArrayList<String>();
        for (var clientId : clients.keySet()) {
            if (SessionDirectory.homeOf(clientId, peers.size()) == from) owned.add(clientId);
        }
        control(from, new Resync(List.copyOf(interest.localFilters()), members, owned));
    }
}
