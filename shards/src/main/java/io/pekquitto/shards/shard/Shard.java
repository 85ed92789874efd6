package io.pekquitto.shards.shard;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardEnvironment;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.actor.ListenerRequest;
import io.pekquitto.shards.mesh.PublisherThrottle;
import io.pekquitto.shards.node.Leaving;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.ShardFigures;
import io.pekquitto.shards.stats.ShardStats;
import io.pekquitto.shards.store.Durability;
import io.pekquitto.shards.store.ShardPersistence;
import io.pekquitto.shards.store.Store;
import io.pekquitto.shards.store.StoreHealth;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A shard: one single-thread dispatcher that owns a set of client sessions, their subscriptions, a copy
 * of the retained messages and the connection actors (its children, on the same thread). It is a thin
 * actor: the rules live in plain classes it owns, which decide, and it performs what they decide.
 *
 * <ul>
 *   <li>{@link Sessions}: attach, release, takeover, expiry and wills, and the claims by which a session
 *       moves to the connection that claims it, on this shard or another;
 *   <li>{@link ReleaseDraining}: deliveries in transit when a connection lets its session go;
 *   <li>{@link TopicRoutes} and {@link SubscriberDeliveries}: where a topic goes, one message per client;
 *   <li>{@link RetainedMessages}: the retained messages and what a new subscription gets of them;
 *   <li>{@link ShardSubscriptions}: SUBSCRIBE and UNSUBSCRIBE, announced to the peers;
 *   <li>{@link ShardPersistence}: what this shard writes to the store, a batch per turn, and reads at start;
 *   <li>{@link ControlPlane}: the peers' route changes, session transfers, barriers and restarts;
 *   <li>the mesh: {@link DataPlane} (batched forwards with credits), {@link PublisherThrottle}
 *       (back-pressure), {@link Barriers} (a SUBACK waits until every peer routes the new filter).
 * </ul>
 *
 * A single-shard broker uses the same rules: it is its own home and its only peer is itself. What it hears is
 * declared in protocol files: {@link ShardCommand} (the broker, its peers, the cluster), {@link ShardRequest} (its
 * connections), {@link ListenerRequest} (the listeners) and {@link ShardInternal} (itself).
 */
public final class Shard extends AbstractBehavior<ShardMessage> {

    private final BrokerSettings settings;
    /** One for every session it makes: what their queues may hold. */
    private final PortableSession.Limits sessionLimits;
    private final TimerScheduler<ShardMessage> timers;
    /** Spawns the connection actors: for sockets, in-process clients and resumed parks. */
    private final ShardConnections connections;
    private final ShardCounts counts;
    private final LongSupplier clock;
    /** What the shard's connections share. */
    private final ShardEnvironment environment;
    private final Sessions<ConnectionRef> sessions;
    private final ReleaseDraining<ConnectionRef> draining = new ReleaseDraining<>();
    private final TopicRoutes routes = new TopicRoutes();
    private final RetainedMessages retained;
    private final PublisherThrottle<Transport, ConnectionRef> throttle = new PublisherThrottle<>();
    private final Mesh mesh = new Mesh();
    private final ParkedConnections parked;
    private final Router router;
    private final ShardPersistence persistence;
    /** Performs what the session rules decide, and recovers the sessions at start. */
    private final ShardSessions shardSessions;
    /** The turn's writes, and what waits for them. */
    private final DurableTurns turns;
    private final ShardSubscriptions subscriptions;
    private final ShardShutdown shutdown = new ShardShutdown();
    private final ShardEvacuation evacuation;
    private final ControlPlane controlPlane;
    /** What the shard and its connections count, for $SYS and the metrics. */
    private final ShardStats stats;
    private boolean flushScheduled;
    /** What its peers said before the shard joined the mesh ({@link ShardCommand.FromTheMesh}), heard once it has. */
    private final StashBuffer<ShardMessage> beforeJoining;
    private boolean joined;

    /**
     * @param shards              the mesh's shards, the local ones set once all are spawned; a restarted shard reads them
     * @param counts              connections and parked connections per shard
     * @param clock               the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
     * @param store               the broker's store, or empty when nothing is kept on disk
     * @param storeHealth         whether it writes now, shared by the shards
     * @param latency             where delivery and CONNACK times go (the metrics' histograms)
     */
    public static Behavior<ShardMessage> create(BrokerSettings settings, Security security, Optional<Store> store,
                                                StoreHealth storeHealth,
                                                MeshPeers shards, ShardCounts counts, LongSupplier clock, LatencyObserver latency) {
        // Set up once more only when its supervisor restarts it: whether the mesh has its reference says nothing,
        // since the broker publishes the references while the shards set up.
        var setUpBefore = new AtomicBoolean();
        return Behaviors.withStash(Mesh.MOST_WAITING_FOR_REFERENCE, beforeJoining -> Behaviors.setup(context ->
                Behaviors.withTimers(timers -> new Shard(context, timers, beforeJoining, setUpBefore.getAndSet(true),
                        settings, security, store, storeHealth, shards, counts, clock, new ShardStats(latency)))));
    }

    private Shard(ActorContext<ShardMessage> context, TimerScheduler<ShardMessage> timers,
                  StashBuffer<ShardMessage> beforeJoining, boolean restarted, BrokerSettings settings,
                  Security security, Optional<Store> store, StoreHealth storeHealth,
                  MeshPeers shards, ShardCounts counts, LongSupplier clock,
                  ShardStats stats) {
        super(context);
        this.beforeJoining = beforeJoining;
        this.stats = stats;
        this.settings = settings;
        this.sessionLimits = new PortableSession.Limits(settings.maxQueuedMessages(), settings.maxQueuedBytes(),
                settings.queueQos0Messages());
        var self = context.getSelf();  // told from the writer's thread
        boolean writeBehind = settings.store().durability() == Durability.FSYNC;
        this.persistence = new ShardPersistence(store, storeHealth, clock, System::currentTimeMillis, this::scheduleFlush,
                settings.store().queuedInMemory(), writeBehind, "pekquitto-store-" + self.path().name(),
                batch -> self.tell(new ShardInternal.BatchWritten(batch)), failure -> self.tell(ShardInternal.WriteFailed.INSTANCE));
        this.environment = ShardEnvironment.of(settings, security, clock, persistence.isDurable(), storeHealth, stats,
                routes::isSharedMember);
        this.timers = timers;
        this.counts = counts;
        this.clock = clock;
        this.retained = new RetainedMessages(settings.retainAvailable(), environment.memory(), settings.shards());
        this.parked = new ParkedConnections(counts, environment.deadlines(), delay -> timers.startSingleTimer(ShardInternal.DeadlineCheck.INSTANCE, delay), clock);
        environment.deadlines().runBy(() -> self.tell(ShardInternal.DeadlineCheck.INSTANCE));  // a connection's check before the timer's
        this.connections = new ShardConnections(context, environment, this::resume, parked);
        this.sessions = new Sessions<>(this::newSession, persistence.journal(), environment.memory(), mesh::isRemote,
                MeshPeers.sessionBytes(settings.maxPacketSize()));
        this.router = new Router(sessions, draining, routes, retained, mesh, persistence, this::scheduleFlush);
        this.turns = new DurableTurns(persistence, mesh);
        this.subscriptions = new ShardSubscriptions(sessions, routes, retained, mesh, router);
        this.shardSessions = new ShardSessions(sessions, draining, routes, mesh, router, persistence, timers, clock,
                this::newSession, context.getLog());
        var crossings = ShardCrossings.wire(routes, mesh, router, shardSessions, transfer -> perform(sessions.receive(transfer, now())));
        this.evacuation = new ShardEvacuation(shardSessions, sessions, crossings.rules(), timers);
        this.controlPlane = new ControlPlane(routes, sessions, mesh, turns, shardSessions, router, crossings, clock);
        shardSessions.recoverRetained(retained::retain, restarted);  // also after a restart by the supervisor
        if (restarted) {
            sessions.restarted();
            joinMesh(shards.localIndexOf(context.getSelf()), shards, false);
        }
    }

    @Override
    public Receive<ShardMessage> createReceive() {
        return newReceiveBuilder()
                .onMessage(ShardCommand.FromTheMesh.class, heard -> !joined, this::untilJoined)
                .onMessage(ListenerRequest.Accept.class, this::onAccept)
                .onMessage(InProcessClient.Start.class, start -> same(() -> connections.startClient(start)))
                .onMessage(ShardCommand.Peers.class, this::onPeers)
                .onMessage(ShardCommand.PeersChanged.class, changed -> same(() -> controlPlane.peersChanged(changed)))
                .onMessage(ShardRequest.Attach.class, this::onAttach)
                .onMessage(ShardRequest.Route.class, this::onRoute)
                .onMessage(ShardRequest.AwaitWrite.class, await -> awaitWrite(await.connection()))
                .onMessage(ShardRequest.Subscribe.class, subscribe -> same(() -> subscriptions.subscribe(subscribe, now())))
                .onMessage(ShardRequest.Unsubscribe.class, unsubscribe -> same(() -> subscriptions.unsubscribe(unsubscribe)))
                .onMessage(ShardRequest.ResumeReading.class, this::onResumeReading)
                .onMessage(ShardRequest.Congested.class, congested -> same(() -> throttle.congested(congested.connection())))
                .onMessage(ShardRequest.Relieved.class, relieved -> relieve(relieved.connection()))
                .onMessage(ShardRequest.Available.class, available -> same(() -> subscriptions.available(available.connection(),
                        available.availability())))
                .onMessage(ShardRequest.Release.class, this::onRelease)
                .onMessage(ShardRequest.Bounce.class, bounce -> onBounce(bounce.connection(), bounce.message()))
                .onMessage(ShardRequest.Drained.class, drained -> finishDraining(drained.connection()))
                .onMessage(ShardRequest.EndedBeforeConnect.class, ended -> connections.endedBeforeConnect(ended.connection()) ? connectionGone() : this)
                .onMessage(ShardCommand.Forward.class, this::onForward)
                .onMessage(ShardCommand.ForwardAck.class, this::onForwardAck)
                .onMessage(ShardCommand.Control.class, control -> same(() -> controlPlane.receive(control.from(), control.message())))
                .onMessageEquals(ShardInternal.Flush.INSTANCE, this::onFlush)
                .onMessage(ShardInternal.ConnectionStopped.class, this::onConnectionStopped)
                .onMessage(ShardCommand.ShutDown.class, this::onShutDown)
                .onMessage(Leaving.Evacuate.class, evacuate -> same(() -> evacuation.start(evacuate, mesh.index())))
                .onMessageEquals(ShardInternal.EvacuationCheck.INSTANCE, () -> same(() -> evacuation.check(mesh.index())))
                .onMessage(ShardCommand.GetFigures.class, this::onGetFigures)
                .onMessage(ShardRequest.Parked.class, parked -> same(() -> this.parked.parked(mesh.index(), parked.connection())))
                .onMessage(ShardInternal.ResumeParked.class, this::onResumeParked)
                .onMessageEquals(ShardInternal.DeadlineCheck.INSTANCE, () -> same(parked::checkDeadlines))
                .onMessage(ShardInternal.SessionExpiryCheck.class, check -> perform(sessions.expiryCheck(check.clientId(), check.generation(), now())))
                .onMessage(ShardInternal.WillDelayExpired.class, will -> perform(sessions.willDelayExpired(will.clientId(), will.generation(), now())))
                .onMessage(ShardInternal.BatchWritten.class, written -> same(() -> turns.written(written.batch())))
                .onMessageEquals(ShardInternal.WriteFailed.INSTANCE, () -> same(turns::writeFailed))
                .onMessageEquals(ShardCommand.StoreRecovered.INSTANCE, () -> same(() -> {
                    turns.storeRecovered();
                    shardSessions.storeRecovered();
                }))
                .onSignal(PostStop.class, stopped -> same(turns::close))
                .onSignal(PreRestart.class, restarting -> same(turns::close))
                .build();
    }

    private long now() { return clock.getAsLong(); }

    /** Does {@code work}, and the shard stays as it is. */
    private Behavior<ShardMessage> same(Runnable work) {
        work.run();
        return this;
    }

    private Session newSession(String clientId) {
        return new Session(clientId, sessionLimits, environment.memory());
    }

    // ---- connections

    private Behavior<ShardMessage> onAccept(ListenerRequest.Accept accept) {
        if (shutdown.isShuttingDown()) {  // accepted before the listener closed: not served
            accept.socket().refuse();
            accept.listener().connections().closed();
            return connectionGone();
        }
        connections.acceptSocket(accept);
        return this;
    }

    /** A connection without an actor needs one, maybe in another actor's turn: it is spawned in the shard's. */
    private void resume(ConnectionRef connection) {
        getContext().getSelf().tell(new ShardInternal.ResumeParked(connection));
    }

    private Behavior<ShardMessage> onResumeParked(ShardInternal.ResumeParked resume) {
        if (resume.connection().parked() != null) parked.resumed(mesh.index());
        connections.resume(resume.connection());
        return this;
    }

    private Behavior<ShardMessage> onRoute(ShardRequest.Route route) {
        if (route.awaitingPubRel() != 0) persistence.journal().awaitingPubRel(route.publisherId(), route.awaitingPubRel(), true);
        boolean waits = router.route(route.publisherId(), route.message()) || route.awaitingPubRel() != 0;
        if (route.awaitingAck() != null && !waits) turns.nothingToWrite(route.awaitingAck());  // not after the turn's write
        return route.awaitingAck() == null || !waits ? this : awaitWrite(route.awaitingAck());
    }

    /** The connection's next acknowledgement goes out once this turn is written, here and by the peers it forwarded to. */
    private Behavior<ShardMessage> awaitWrite(ConnectionRef connection) {
        turns.await(connection);
        scheduleFlush();
        return this;
    }

    private Behavior<ShardMessage> onAttach(ShardRequest.Attach a) {
        return perform(sessions.connect(a.clientId(), a.connection(), a.cleanStart(), a.sessionExpiryInterval(), a.will()));
    }

    private Behavior<ShardMessage> onRelease(ShardRequest.Release release) {
        subscriptions.detached(release.connection());
        draining.started(release.connection(), release.clientId(), router.takeUnsent(release.connection()));
        long now = now();
        var will = release.will().map(delayed -> PendingWill.delayed(delayed.message(), delayed.delaySeconds(), now));
        perform(sessions.release(release.connection(), release.clientId(), release.session(),
                release.sessionExpiryInterval(), will, now));
        // Everything we sent it before this reaches it first, and comes back as a Bounce.
        release.connection().tell(Connection.ReleaseConfirmed.INSTANCE);
        return this;
    }

    private Behavior<ShardMessage> onBounce(ConnectionRef connection, Message message) {
        draining.bounced(connection, message);
        return this;
    }

    private Behavior<ShardMessage> finishDraining(ConnectionRef connection) {
        var drained = draining.finish(connection);
        if (drained != null) router.redeliver(drained);
        return this;
    }

    private Behavior<ShardMessage> onConnectionStopped(ShardInternal.ConnectionStopped stopped) {
        var connection = stopped.connection();
        if (!connection.isServedBy(stopped.actor())) return this;  // it parked, or a later actor serves it
        relieve(connection);
        subscriptions.detached(connection);
        router.takeUnsent(connection);
        finishDraining(connection);  // if it failed before draining: what it bounced is kept
        perform(sessions.connectionStopped(connection, now()));
        return connectionGone();
    }

    private Behavior<ShardMessage> connectionGone() {
        shutdown.connectionGone(mesh.index(), counts.connections().decrementAndGet(mesh.index()));
        return this;
    }

    private Behavior<ShardMessage> onShutDown(ShardCommand.ShutDown shutDown) {
        shutdown.start(shutDown.replyTo(), getContext().getChildren(), sessions.connections(), connections.awaitingConnect());
        shutdown.connectionGone(mesh.index(), counts.connections().get(mesh.index()));  // none to wait for
        return this;
    }

    private Behavior<ShardMessage> perform(List<SessionEffect<ConnectionRef>> effects) {
        return same(() -> shardSessions.perform(effects));
    }

    // ---- batches: deliveries to connections, forwards to peers

    /** Everything already in our mailbox is handled before the flush: batches form by themselves. */
    private void scheduleFlush() {
        if (flushScheduled) return;
        flushScheduled = true;
        getContext().getSelf().tell(ShardInternal.Flush.INSTANCE);
    }

    private Behavior<ShardMessage> onFlush() {
        flushScheduled = false;
        turns.endTurn(router::flush);
        return this;
    }

    private Behavior<ShardMessage> onForward(ShardCommand.Forward forward) {
        mesh.heardFrom(forward.from());
        forward.items().forEach(item -> router.forwarded(forward.from(), item));
        // A peer's batch is acknowledged once written here: its publishers' PUBACKs wait for that.
        if (throttle.acknowledgeNow(forward.from())) turns.acknowledgePeer(forward.from());
        return this;
    }

    private Behavior<ShardMessage> onForwardAck(ShardCommand.ForwardAck ack) {
        mesh.heardFrom(ack.from());
        mesh.batchAcknowledged(ack.from());
        turns.peersAcknowledged(ack.from(), ack.written());
        throttle.meshRelieved(mesh.isBelowLowWater()).forEach(Transport::readMore);
        return this;
    }

    // ---- back-pressure

    private Behavior<ShardMessage> onResumeReading(ShardRequest.ResumeReading resume) {
        if (throttle.mayRead(resume.transport(), mesh.isOverloaded())) resume.transport().readMore();
        return this;
    }

    private Behavior<ShardMessage> relieve(ConnectionRef connection) {
        var relief = throttle.relieved(connection, mesh.isBelowLowWater());
        relief.acks().forEach(turns::acknowledgePeer);
        relief.readers().forEach(Transport::readMore);
        return this;
    }

    // ---- control plane

    /** The broker's start: join the mesh, take back this shard's sessions from the store, then hear what peers said meanwhile. */
    private Behavior<ShardMessage> onPeers(ShardCommand.Peers peers) {
        joinMesh(peers.index(), peers.shards(), peers.shards().clustered());
        shardSessions.recover();
        return beforeJoining.unstashAll(this);
    }

    private Behavior<ShardMessage> untilJoined(ShardCommand.FromTheMesh heard) {
        beforeJoining.stash(heard);
        return this;
    }

    /** {@code awaitCluster}: the first start of a node of a cluster (a restart takes claims at once, resynchronised). */
    private void joinMesh(int index, MeshPeers shards, boolean awaitCluster) {
        routes.joinMesh(index, shards.size());
        mesh.join(index, shards);
        sessions.joinMesh(index, mesh.ring(), awaitCluster);
        joined = true;
    }

    private Behavior<ShardMessage> onGetFigures(ShardCommand.GetFigures get) {
        int index = mesh.index();
        var census = sessions.census();
        get.replyTo().tell(stats.figures(index, new ShardFigures.Gauges(counts.connections().get(index),
                counts.parked().get(index), census.sessions(), census.offline(), census.subscriptions(), census.queued(),
                retained.size(), census.expired(), census.droppedOffline(), mesh.batchesSent(), mesh.droppedQos0()),
                environment.memory().figures()));
        return this;
    }
}
