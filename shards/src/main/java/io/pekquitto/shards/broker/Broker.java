package io.pekquitto.shards.broker;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.pekquitto.auth.Security;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.bridge.Bridge;
import io.pekquitto.shards.bridge.BridgeCommand;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.listener.actor.ListenerCommand;
import io.pekquitto.shards.listener.actor.ListenerReport;
import io.pekquitto.shards.listener.actor.TcpListener;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.node.NodeMesh;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.shard.Shard;
import io.pekquitto.shards.shard.ShardCommand;
import io.pekquitto.shards.shard.ShardCounts;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.SysExtras;
import io.pekquitto.shards.store.Store;
import io.pekquitto.shards.store.StoreHealth;
import io.pekquitto.shards.store.StoreRecovery;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.transport.ShardLoopConfigurator;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The broker's guardian: spawns one {@link Shard} per configured shard, each on its own single-thread
 * dispatcher, binds the listeners and hands each accepted connection to a shard. Embedders spawn
 * {@link #create(BrokerSettings)} in their own actor system (with {@link #dispatcherConfig(int)} in its
 * configuration to tune the shards' dispatchers, else the broker registers them itself) and connect
 * in-process clients with {@link BrokerCommand.ConnectClient}.
 */
public final class Broker extends AbstractBehavior<BrokerCommand> {

    private final BrokerSettings settings;
    private final Optional<Store> store;
    /** Whether the store writes now; it tells the shards when it writes again after a failure. */
    private final StoreHealth storeHealth;
    /** Tries to make a failing store write again; empty without a store. */
    private final Optional<StoreRecovery> storeRecovery;
    private final List<ActorRef<ShardMessage>> shards = new ArrayList<>();
    private final ShardCounts counts;
    private final InetSocketAddress[] boundAddresses;
    private final List<Optional<ReloadableTls>> listenerTls = new ArrayList<>();
    private final List<ActorRef<BrokerCommand.Bound>> waitingForBinding = new ArrayList<>();
    private final List<org.apache.pekko.actor.ActorRef> listeners = new ArrayList<>();
    /** Each listener's rules and its count of open connections. */
    private final List<Listener> served = new ArrayList<>();
    private final TimerScheduler<BrokerCommand> timers;
    /** Who waits for the shutdown to end; empty until it starts. */
    private final List<ActorRef<Done>> waitingForShutdown = new ArrayList<>();
    private boolean acceptingStopped;
    private final Set<Integer> drainedShards = new HashSet<>();
    private final Cancellable shutdownTask;
    private final ActorRef<FiguresCommand> figures;
    /** Where each shard says that none of its connections is left, as the broker shuts down. */
    private final ActorRef<ShardCommand.ConnectionsGone> drained;
    private final List<ActorRef<BridgeCommand>> bridges = new ArrayList<>();
    private Optional<String> bindFailure = Optional.empty();
    private int listenersBound;

    /** The configuration path of shard {@code index}'s dispatcher. */
    public static String dispatcherPath(int index) {
        return "pekquitto-shard-dispatcher-" + index;
    }

    /**
     * How long an idle shard's loop keeps looking for work before it sleeps: a client's round trip on
     * loopback comes within it.
     */
    static final Duration SPIN = Duration.ofNanos(100_000);

    /**
     * One single-thread dispatcher per shard (docs/architecture.md, Threading), each a Netty event loop
     * ({@link ShardLoopConfigurator}) that also serves the sockets of the shard's connections, spinning
     * {@link #spinFor} before it sleeps. {@code throughput} lets a shard handle a burst of messages per
     * actor before switching, which batches work on a busy shard.
     */
    public static Config dispatcherConfig(int shards) {
        var spin = spinFor(shards, Runtime.getRuntime().availableProcessors());
        var text = new StringBuilder();
        for (int i = 0; i < shards; i++) {
            text.append(dispatcherPath(i)).append(" { type = Dispatcher, executor = \"")
                    .append(ShardLoopConfigurator.class.getName()).append("\", spin = ").append(spin.toNanos())
                    .append("ns, throughput = 64 }\n");
        }
        return ConfigFactory.parseString(text.toString());
    }

    /**
     * {@link #SPIN} while every shard has a second processor (as {@code shards = auto} leaves it); none
     * when shards crowd the processors, where a spinning thread takes the time another one needs.
     */
    static Duration spinFor(int shards, int processors) {
        return 2 * shards <= processors ? SPIN : Duration.ZERO;
    }

    /**
     * A broker whose clients are checked against the password and ACL files of {@code settings.auth()},
     * read now.
     *
     * @throws IllegalArgumentException if a file cannot be read (the message names the file and the line)
     */
    public static Behavior<BrokerCommand> create(BrokerSettings settings) {
        return create(settings, settings.auth().readSecurity(), UnaryOperator.identity());
    }

    /** A broker whose clients are authenticated and authorized by an embedder's {@code security}. */
    public static Behavior<BrokerCommand> create(BrokerSettings settings, Security security) {
        return create(settings, security, UnaryOperator.identity());
    }

    /**
     * The broker, with each shard's behaviour wrapped by {@code aroundShard} inside its supervisor: an
     * interceptor for monitoring, say, or a test's injected failure. The store of {@code settings.store()}
     * is opened now, so that a store that cannot be opened stops the start here; spawn the behaviour
     * once: the broker closes the store when it stops.
     *
     * @throws io.pekquitto.shards.store.StoreException naming the store's path and the cause
     */
    public static Behavior<BrokerCommand> create(BrokerSettings settings, Security security,
                                                 UnaryOperator<Behavior<ShardMessage>> aroundShard) {
        return create(settings, security, aroundShard, LatencyObserver.NONE);
    }

    /** The broker, with its publish-to-delivery and connect-to-CONNACK times told to {@code latency} (metrics). */
    public static Behavior<BrokerCommand> create(BrokerSettings settings, Security security,
                                                 UnaryOperator<Behavior<ShardMessage>> aroundShard, LatencyObserver latency) {
        return create(settings, security, aroundShard, latency, UnaryOperator.identity());
    }

    /**
     * The broker, with its store (if {@code settings} ask for one) wrapped by {@code aroundStore}: an
     * embedder's own instrumentation, or a test's injected failure.
     */
    public static Behavior<BrokerCommand> create(BrokerSettings settings, Security security,
                                                 UnaryOperator<Behavior<ShardMessage>> aroundShard, LatencyObserver latency,
                                                 UnaryOperator<Store> aroundStore) {
        return create(settings, security, aroundShard, latency, aroundStore, SysExtras.NONE);
    }

    /** The broker, publishing {@code extras} (a cluster's membership, say) under {@code $SYS/broker/} with its own figures. */
    public static Behavior<BrokerCommand> create(BrokerSettings settings, Security security,
                                                 UnaryOperator<Behavior<ShardMessage>> aroundShard, LatencyObserver latency,
                                                 UnaryOperator<Store> aroundStore, SysExtras extras) {
        var store = settings.store().open().map(aroundStore);
        return Behaviors.setup(context -> Behaviors.withTimers(
                timers -> new Broker(context, timers, settings, security, store, aroundShard, latency, extras)));
    }

    private Broker(ActorContext<BrokerCommand> context, TimerScheduler<BrokerCommand> timers, BrokerSettings settings,
                   Security security, Optional<Store> store, UnaryOperator<Behavior<ShardMessage>> aroundShard,
                   LatencyObserver latency, SysExtras extras) {
        super(context);
        ShardDispatchers.ensure(context.getSystem(), settings.shards());  // an embedder need not configure them
        this.timers = timers;
        this.store = store;
        this.storeHealth = new StoreHealth("store " + settings.store().path().toAbsolutePath(), System::nanoTime);
        this.storeRecovery = store.map(kept -> new StoreRecovery(kept, storeHealth));
        this.settings = settings;
        this.counts = new ShardCounts(settings.shards());
        var mesh = new MeshPeers(settings.shards(), context.getSystem().address().hostPort(), settings.cluster().enabled());
        for (int i = 0; i < settings.shards(); i++) {
            var dispatcher = dispatcherPath(i);
            var shard = Behaviors.supervise(aroundShard.apply(Shard.create(settings, security, store, storeHealth,
                            mesh, counts, System::nanoTime, latency)))
                    .onFailure(SupervisorStrategy.restart());
            shards.add(context.spawn(shard, "shard-" + i, DispatcherSelector.fromConfig(dispatcher)));
        }
        // Each shard writes what it kept while the store failed (told on the recovery's thread).
        var all = List.copyOf(shards);
        storeHealth.onRecovered(() -> all.forEach(shard -> shard.tell(ShardCommand.StoreRecovered.INSTANCE)));
        // Published before any shard can fail, so a restarted shard finds its peers; sent for the first start.
        mesh.local(shards);
        // A node of a cluster: its membership lists our shards to other nodes, and its serializer numbers theirs.
        if (settings.cluster().enabled()) NodeMesh.get(context.getSystem()).publish(mesh);
        for (int i = 0; i < shards.size(); i++) shards.get(i).tell(new ShardCommand.Peers(i, mesh));
        this.drained = context.messageAdapter(ShardCommand.ConnectionsGone.class,
                gone -> new BrokerInternal.ShardDrained(gone.index()));
        var listenerReports = context.messageAdapter(ListenerReport.class, BrokerInternal.FromListener::new);
        this.boundAddresses = new InetSocketAddress[settings.listeners().size()];
        // Where a reuse-port listener opens each shard's socket: a task there runs on the shard's loop.
        var dispatchers = new ArrayList<Executor>();
        for (int i = 0; i < shards.size(); i++) {
            dispatchers.add(context.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(dispatcherPath(i))));
        }
        for (int i = 0; i < settings.listeners().size(); i++) {
            served.add(Listener.of(i, settings.listeners().get(i)));
            listenerTls.add(Optional.empty());
            var placement = new ShardPlacement(settings.placement(), shards, counts.connections());
            var listener = served.get(i);
            listeners.add(Adapter.actorOf(context, TcpListener.props(listener, placement, dispatchers, listenerReports), "listener-" + i));
        }
        this.figures = context.spawn(FiguresCollector.create(shards, served, store, storeHealth, settings.operations().sysInterval(),
                version(), extras, System::nanoTime), "figures");
        this.shutdownTask = shutDownWithTheSystem(context, settings.operations().shutdownTimeout());
        startBridges(context);
    }

    /**
     * Each bridge on the shard that is its local client's home, supervised: restarted after a failure
     * (its local client taken over, say) with a growing wait. A bridge whose TLS files cannot be used
     * fails the start as a listener's would.
     */
    private void startBridges(ActorContext<BrokerCommand> context) {
        var self = context.getSelf();
        Bridge.LocalConnector connector = (options, replyTo) -> self.tell(new BrokerCommand.ConnectClient(options, replyTo));
        for (var bridge : settings.bridges()) {
            int home = SessionDirectory.homeOf(bridge.localClientId(), shards.size());
            try {
                var behavior = Behaviors.supervise(Bridge.create(bridge, settings, connector, shards.get(home), System::nanoTime))
                        .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30), 0.2));
                bridges.add(context.spawn(behavior, "bridge-" + URLEncoder.encode(bridge.name(), StandardCharsets.UTF_8),
                        DispatcherSelector.fromConfig(dispatcherPath(home))));
            } catch (TlsConfigurationException e) {
                context.getLog().error(e.getMessage());
                bindFailure = Optional.of(e.getMessage());
            }
        }
    }

    /** The version in the runnable jar's manifest; "dev" when run from classes. */
    public static String version() {
        return Optional.ofNullable(Broker.class.getPackage().getImplementationVersion()).orElse("dev");
    }

    /** The actor system's CoordinatedShutdown (SIGTERM, or the embedder's own) shuts the broker down first. */
    private static Cancellable shutDownWithTheSystem(ActorContext<BrokerCommand> context, Duration timeout) {
        var self = context.getSelf();
        var system = context.getSystem();
        return CoordinatedShutdown.get(system).addCancellableTask(CoordinatedShutdown.PhaseServiceRequestsDone(),
                "pekquitto-shutdown-" + self.path().name(),
                () -> AskPattern.ask(self, BrokerCommand.Shutdown::new, timeout, system.scheduler()).exceptionally(stopped -> Done.done()));
    }

    @Override
    public Receive<BrokerCommand> createReceive() {
        return newReceiveBuilder()
                // After the shards: a parent stops once its children have, so no shard writes any more.
                .onSignal(PostStop.class, signal -> onPostStop())
                .onMessage(BrokerCommand.Shutdown.class, this::onShutdown)
                .onMessage(BrokerCommand.GetFigures.class, get -> {
                    figures.tell(new FiguresCommand.Collect(get.replyTo()));
                    return this;
                })
                .onMessage(BrokerInternal.ShardDrained.class, this::onShardDrained)
                .onMessageEquals(BrokerCommand.StopAccepting.INSTANCE, this::stopAccepting)
                .onMessageEquals(BrokerInternal.ShutdownTimedOut.INSTANCE, this::onShutdownTimedOut)
                .onMessage(BrokerCommand.GetBoundAddresses.class, this::onGetBoundAddresses)
                .onMessage(BrokerCommand.ConnectClient.class, this::onConnectClient)
                .onMessage(BrokerInternal.FromListener.class, this::onListenerReport)
                .build();
    }

    private Behavior<BrokerCommand> onPostStop() {
        storeRecovery.ifPresent(StoreRecovery::close);
        store.ifPresent(Store::close);
        shutdownTask.cancel();
        if (!waitingForShutdown.isEmpty()) getContext().getLog().info("pekquitto stopped");
        waitingForShutdown.forEach(replyTo -> replyTo.tell(Done.done()));
        return this;
    }

    /** Listeners closed, then every shard disconnects its clients; the broker stops when all are done. */
    private Behavior<BrokerCommand> onShutdown(BrokerCommand.Shutdown shutdown) {
        waitingForShutdown.add(shutdown.replyTo());
        if (waitingForShutdown.size() > 1) return this;  // already under way
        var timeout = settings.operations().shutdownTimeout();
        getContext().getLog().info("Shutting down: disconnecting {} clients (at most {})", counts.connectionsTotal(), timeout);
        stopAccepting();
        bridges.forEach(bridge -> bridge.tell(BridgeCommand.Stop.INSTANCE));
        shards.forEach(shard -> shard.tell(new ShardCommand.ShutDown(drained)));
        timers.startSingleTimer(BrokerInternal.ShutdownTimedOut.INSTANCE, drainTimeout());
        return this;
    }

    private Behavior<BrokerCommand> stopAccepting() {
        if (!acceptingStopped) listeners.forEach(listener -> listener.tell(ListenerCommand.Unbind.INSTANCE, org.apache.pekko.actor.ActorRef.noSender()));
        acceptingStopped = true;
        return this;
    }

    private Behavior<BrokerCommand> onShardDrained(BrokerInternal.ShardDrained drained) {
        drainedShards.add(drained.index());
        // Every connection actor has stopped: its last bytes (a DISCONNECT 0x8B, a WebSocket's close frame)
        // are in the kernel's buffer already, flushed in its turn.
        return drainedShards.size() < shards.size() ? this : Behaviors.stopped();
    }

    private Behavior<BrokerCommand> onShutdownTimedOut() {
        getContext().getLog().warn("Shutting down: {} clients still connected after {}, stopping without them",
                counts.connectionsTotal(), drainTimeout());
        return Behaviors.stopped();
    }

    /** Most of the shutdown timeout is for the clients; the rest for the shards and the store to stop. */
    private Duration drainTimeout() {
        return settings.operations().shutdownTimeout().multipliedBy(3).dividedBy(4);
    }

    private Behavior<BrokerCommand> onGetBoundAddresses(BrokerCommand.GetBoundAddresses get) {
        waitingForBinding.add(get.replyTo());
        answerIfBound();
        return this;
    }

    private Behavior<BrokerCommand> onConnectClient(BrokerCommand.ConnectClient connect) {
        int shard = ShardPlacement.forInProcessClient(connect.options().clientId(), counts.connections());
        shards.get(shard).tell(new InProcessClient.Start(connect.options(), connect.replyTo()));
        return this;
    }

    private Behavior<BrokerCommand> onListenerReport(BrokerInternal.FromListener from) {
        if (from.report() instanceof ListenerReport.Bound bound) return onListenerBound(bound);
        return onListenerFailed((ListenerReport.Failed) from.report());
    }

    private Behavior<BrokerCommand> onListenerBound(ListenerReport.Bound bound) {
        boundAddresses[bound.index()] = bound.address();
        listenerTls.set(bound.index(), bound.tls());
        listenersBound++;
        getContext().getLog().debug("listening on [{}]", bound.address());
        answerIfBound();
        return this;
    }

    private Behavior<BrokerCommand> onListenerFailed(ListenerReport.Failed failed) {
        getContext().getLog().error(failed.cause());
        bindFailure = Optional.of(failed.cause());
        answerIfBound();
        return this;
    }

    private void answerIfBound() {
        if (bindFailure.isEmpty() && listenersBound < boundAddresses.length) return;
        var answer = bindFailure.isPresent() ? new BrokerCommand.Bound(List.of(), bindFailure, counts, List.of())
                : new BrokerCommand.Bound(List.of(boundAddresses), bindFailure, counts, List.copyOf(listenerTls));
        waitingForBinding.forEach(replyTo -> replyTo.tell(answer));
        waitingForBinding.clear();
    }
}
