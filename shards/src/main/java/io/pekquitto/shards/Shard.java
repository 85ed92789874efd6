package io.pekquitto.shards;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardEnvironment;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.mesh.PublisherThrottle;
import io.pekquitto.shards.node.Leaving;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
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
import io.pekquitto.shards.tcp.ListenerTls;
import io.pekquitto.shards.transport.AcceptedSocket;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
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
 * A single-shard broker uses the same rules: it is its own home and its only peer is itself.
 */
public final class Shard extends AbstractBehavior<ShardMessage> {

    /** The shard's own messages: from the broker, from its peers, and to itself. */
    public sealed interface Command extends ShardMessage {}

    /** A new connection from {@code listener} (TCP, TLS, WebSocket), to be served by this shard. */
    public record Accept(AcceptedSocket socket, InetSocketAddress remote, Optional<ListenerTls> tls,
                         Listener listener) implements Command {}

    /** From the Broker: this shard's index and every shard of the mesh, itself included. */
    public record Peers(int index, MeshPeers shards) implements Command {}

    /**
     * From the cluster, by id: shards of other nodes listed now ({@code joined}), removed ({@code gone}; {@code left}: of a node that
     * left, not lost), joined ones of younger nodes ({@code catchUp}: they get this node's retained messages), and every shard of a
     * node leaving now, this node's included ({@code leaving}: home to none).
     */
    public record PeersChanged(List<Integer> joined, List<Integer> gone, List<Integer> catchUp, List<Integer> left,
                               List<Integer> leaving) implements Command {}

    /** Data plane: a batch of publishes forwarded by shard {@code from}. */
    public record Forward(int from, List<Forwarded> items) implements Command {}

    /** Data plane: shard {@code from} has processed one of our batches (a credit back), and written it or failed to. */
    public record ForwardAck(int from, boolean written) implements Command {}

    /** Control plane: a message from shard {@code from}, in send order per pair. */
    public record Control(int from, ControlMessage message) implements Command {}

    /** From the broker's {@link FiguresCollector}: this shard's counters and gauges now. */
    public record GetFigures(ActorRef<ShardFigures> replyTo) implements Command {}

    /** From the Broker: the broker shuts down; each connection is told, and the broker hears when none is left. */
    public record ShutDown(ActorRef<Broker.Command> replyTo) implements Command {}

    record ConnectionStopped(ConnectionRef connection, ActorRef<Connection.Command> actor) implements Command {}

    /** A parked connection was told something, or one's CONNECT is whole: spawn its actor. */
    private record ResumeParked(ConnectionRef connection) implements Command {}

    /** The earliest deadline of a connection has come, or one earlier than the timer's was set. */
    private enum DeadlineCheck implements Command { INSTANCE }

    /** A session's expiry timer ({@link ShardSessions}). */
    record SessionExpiryCheck(String clientId, long generation) implements Command {}

    /** A will's delay timer ({@link ShardSessions}). */
    record WillDelayExpired(String clientId, long generation) implements Command {}

    /** From the store's writer thread: this shard's batches up to {@code batch} are written. */
    private record BatchWritten(long batch) implements Command {}

    /** From the store's writer thread: a write failed; the writer keeps it, and what follows, until the store recovers. */
    private enum WriteFailed implements Command { INSTANCE }

    /** From the store's recovery: the store writes again, so what this shard kept is written now. */
    public enum StoreRecovered implements Command { INSTANCE }

    /** Sent to self when the first delivery or forward of a turn is queued: all of the turn goes out in batches. */
    private enum Flush implements Command { INSTANCE }

    private final BrokerSettings settings;
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
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> new Shard(context, timers, settings, security,
                store, storeHealth, shards, counts, clock, new ShardStats(latency))));
    }

    private Shard(ActorContext<ShardMessage> context, TimerScheduler<ShardMessage> timers, BrokerSettings settings,
                  Security security, Optional<Store> store, StoreHealth storeHealth,
                  MeshPeers shards, ShardCounts counts, LongSupplier clock,
                  ShardStats stats) {
        super(context);
        this.stats = stats;
        this.settings = settings;
        var self = context.getSelf();  // told from the writer's thread
        boolean writeBehind = settings.store().durability() == Durability.FSYNC;
        this.persistence = new ShardPersistence(store, storeHealth, clock, System::currentTimeMillis, this::scheduleFlush,
                settings.store().queuedInMemory(), writeBehind, "pekquitto-store-" + self.path().name(),
                batch -> self.tell(new BatchWritten(batch)), failure -> self.tell(WriteFailed.INSTANCE));
        this.environment = ShardEnvironment.of(settings, security, clock, persistence.isDurable(), storeHealth, stats,
                routes::isSharedMember);
        this.timers = timers;
        this.counts = counts;
        this.clock = clock;
        this.retained = new RetainedMessages(settings.retainAvailable(), environment.memory(), settings.shards());
        this.parked = new ParkedConnections(counts, environment.deadlines(), delay -> timers.startSingleTimer(DeadlineCheck.INSTANCE, delay), clock);
        environment.deadlines().runBy(() -> self.tell(DeadlineCheck.INSTANCE));  // a connection's check before the timer's
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
        boolean restarted = shards.started();
        shardSessions.recoverRetained(retained::retain, restarted);  // also after a restart by the supervisor
        if (restarted) {
            sessions.restarted();
            joinMesh(shards.localIndexOf(context.getSelf()), shards, false);
        }
    }

    @Override
    public Receive<ShardMessage> createReceive() {
        return newReceiveBuilder()
                .onMessage(Accept.class, this::onAccept)
                .onMessage(InProcessClient.Start.class, start -> same(() -> connections.startClient(start)))
                .onMessage(Peers.class, this::onPeers)
                .onMessage(PeersChanged.class, changed -> same(() -> controlPlane.peersChanged(changed)))
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
                .onMessage(Forward.class, this::onForward)
                .onMessage(ForwardAck.class, this::onForwardAck)
                .onMessage(Control.class, control -> same(() -> controlPlane.receive(control.from(), control.message())))
                .onMessageEquals(Flush.INSTANCE, this::onFlush)
                .onMessage(ConnectionStopped.class, this::onConnectionStopped)
                .onMessage(ShutDown.class, this::onShutDown)
                .onMessage(Leaving.Evacuate.class, evacuate -> same(() -> evacuation.start(evacuate, mesh.index())))
                .onMessageEquals(ShardEvacuation.Check.INSTANCE, () -> same(() -> evacuation.check(mesh.index())))
                .onMessage(GetFigures.class, this::onGetFigures)
                .onMessage(ShardRequest.Parked.class, parked -> same(() -> this.parked.parked(mesh.index(), parked.connection())))
                .onMessage(ResumeParked.class, this::onResumeParked)
                .onMessageEquals(DeadlineCheck.INSTANCE, () -> same(parked::checkDeadlines))
                .onMessage(SessionExpiryCheck.class, check -> perform(sessions.expiryCheck(check.clientId(), check.generation(), now())))
                .onMessage(WillDelayExpired.class, will -> perform(sessions.willDelayExpired(will.clientId(), will.generation(), now())))
                .onMessage(BatchWritten.class, written -> same(() -> turns.written(written.batch())))
                .onMessageEquals(WriteFailed.INSTANCE, () -> same(turns::writeFailed))
                .onMessageEquals(StoreRecovered.INSTANCE, () -> same(() -> {
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
        return new Session(clientId, settings.maxQueuedMessages(), settings.maxQueuedBytes(), settings.queueQos0Messages(),
                environment.memory());
    }

    // ---- connections

    private Behavior<ShardMessage> onAccept(Accept accept) {
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
        getContext().getSelf().tell(new ResumeParked(connection));
    }

    private Behavior<ShardMessage> onResumeParked(ResumeParked resume) {
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

    private Behavior<ShardMessage> onConnectionStopped(ConnectionStopped stopped) {
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

    private Behavior<ShardMessage> onShutDown(ShutDown shutDown) {
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
        getContext().getSelf().tell(Flush.INSTANCE);
    }

    private Behavior<ShardMessage> onFlush() {
        flushScheduled = false;
        turns.endTurn(router::flush);
        return this;
    }

    private Behavior<ShardMessage> onForward(Forward forward) {
        mesh.heardFrom(forward.from());
        forward.items().forEach(item -> router.forwarded(forward.from(), item));
        // A peer's batch is acknowledged once written here: its publishers' PUBACKs wait for that.
        if (throttle.acknowledgeNow(forward.from())) turns.acknowledgePeer(forward.from());
        return this;
    }

    private Behavior<ShardMessage> onForwardAck(ForwardAck ack) {
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

    /** The broker's start: join the mesh, then take back this shard's sessions from the store. */
    private Behavior<ShardMessage> onPeers(Peers peers) {
        joinMesh(peers.index(), peers.shards(), peers.shards().clustered());
        shardSessions.recover();
        return this;
    }

    /** {@code awaitCluster}: the first start of a node of a cluster (a restart takes claims at once, resynchronised). */
    private void joinMesh(int index, MeshPeers shards, boolean awaitCluster) {
        routes.joinMesh(index, shards.size());
        mesh.join(index, shards);
        sessions.joinMesh(index, mesh.ring(), awaitCluster);
    }

    private Behavior<ShardMessage> onGetFigures(GetFigures get) {
        int index = mesh.index();
        var census = sessions.census();
        get.replyTo().tell(stats.figures(index, new ShardFigures.Gauges(counts.connections().get(index),
                counts.parked().get(index), census.sessions(), census.offline(), census.subscriptions(), census.queued(),
                retained.size(), census.expired(), census.droppedOffline(), mesh.batchesSent(), mesh.droppedQos0()),
                environment.memory().figures()));
        return this;
    }
}
