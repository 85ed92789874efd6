package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.DeadLetter;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.Kill;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.Patterns;

/**
 * A {@link BrokerExtension} with {@code shards} shards, for a test class (on a static field) or for
 * each test (on an instance field), with what the test knows of its round-robin placement: the k-th
 * accepted TCP connection goes to shard {@code k % shards}, and the n-th connection a shard accepts
 * since it (re)started is its child {@code connection-n}. Clients connect strictly one after another
 * through {@link #on}, which first opens throwaway connections to reach the wanted shard, then checks
 * that the new connection's actor is where the count says: a test that thinks it spans two shards does.
 */
final class MeshBroker extends BrokerExtension {
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(3);
    private static final AtomicInteger THROWAWAYS = new AtomicInteger();

    private final int shards;
    /** Connections accepted by the listener so far. */
    private int accepted;
    /** Connections each shard has accepted since it (re)started: the number in its child's name. */
    private final int[] acceptedByShard;

    /** The broker's dead letters by message class: a {@code Deliver} among them is a message lost. */
    private final Map<String, Integer> deadLetters = new ConcurrentHashMap<>();

    /**
     * A broker with {@code shards} shards and a larger offline/slow-session queue: the 10,000-message
     * tests are about the mesh, not about {@code max-queued-messages} dropping what a slow subscriber
     * has not taken yet (documented: more are dropped).
     */
    static MeshBroker withShards(int shards) {
        return new MeshBroker(shards);
    }

    /** A broker with {@code shards} shards and {@code overrides} over the larger queue (HOCON, later keys win). */
    static MeshBroker withShards(int shards, String overrides) {
        return new MeshBroker(shards, "\n" + overrides);
    }

    /** The same with a store on disk (in a new temporary directory), {@code durability = batch}. */
    static MeshBroker withShardsAndStore(int shards) {
        try {
            var path = Files.createTempDirectory("pekquitto-mesh-store");
            return new MeshBroker(shards, "\nstore { enabled = true, path = \"" + path + "\" }");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private MeshBroker(int shards) {
        this(shards, "");
    }

    private MeshBroker(int shards, String more) {
        super("shards = " + shards + "\nmax-queued-messages = 100000" + more);
        this.shards = shards;
        this.acceptedByShard = new int[shards];
    }

    /** A new broker: no connection accepted yet, and its dead letters counted. */
    @Override
    protected void started() {
        accepted = 0;
        Arrays.fill(acceptedByShard, 0);
        deadLetters.clear();
        var system = pekquitto().actorSystem();
        var counter = system.systemActorOf(Behaviors.receive(DeadLetter.class).onMessage(DeadLetter.class, dead -> {
            deadLetters.merge(dead.message().getClass().getName(), 1, Integer::sum);
            return Behaviors.same();
        }).build(), "test-dead-letters", Props.empty());
        system.eventStream().tell(new EventStream.Subscribe<>(DeadLetter.class, counter));
    }

    /** Dead letters so far, by message class (for failure messages and bug reports). */
    Map<String, Integer> deadLetters() {
        return new TreeMap<>(deadLetters);
    }

    /** The broker, its shards wrapped to fail on an {@link InjectedFailure}. */
    @Override
    protected Pekquitto startInProcess(BrokerSettings settings) {
        return Pekquitto.start(settings, settings.auth().readSecurity(), shard -> Behaviors.intercept(FailOnDemand::new, shard));
    }

    /** The shard the next accepted connection goes to. */
    int nextShard() {
        return accepted % shards;
    }

    /**
     * Opens one client's connection on {@code shard}: {@code connect} must open exactly one TCP
     * connection and return once its CONNACK has arrived (a refused CONNECT counts as well).
     */
    <T> T on(int shard, Callable<T> connect) throws Exception {
        skipTo(shard);
        int n = countAccepted(shard);
        T client = connect.call();
        assertTrue(connectionExists(shard, n), "the client's connection is not " + path(shard, n));
        return client;
    }

    /** Opens throwaway connections (CONNECT, CONNACK, DISCONNECT) until the next one lands on {@code shard}. */
    void skipTo(int shard) throws Exception {
        assertTrue(shard >= 0 && shard < shards, "no shard " + shard);
        while (nextShard() != shard) {
            countAccepted(nextShard());
            RawMqtt.connectAndDisconnect(port(), "throwaway-" + THROWAWAYS.incrementAndGet());
        }
    }

    private int countAccepted(int shard) {
        accepted++;
        return ++acceptedByShard[shard];
    }

    /** The path of the {@code n}-th connection of {@code shard} since it (re)started. */
    static String path(int shard, int n) {
        return "/user/shard-" + shard + "/connection-" + n;
    }

    boolean connectionExists(int shard, int n) throws Exception {
        var selection = pekquitto().actorSystem().classicSystem().actorSelection(path(shard, n));
        var reply = Patterns.ask(selection, new Identify(n), ASK_TIMEOUT).toCompletableFuture()
                .get(ASK_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        return ((ActorIdentity) reply).getActorRef().isPresent();
    }

    /** Returns once {@code connection-n} of {@code shard} has stopped (its client gone, its session released). */
    void awaitConnectionGone(int shard, int n) throws Exception {
        Eventually.await(Duration.ofSeconds(10), path(shard, n) + " to stop", () -> !connectionExists(shard, n));
    }

    /** The connection actor of the last client placed on {@code shard} through {@link #on}. */
    int lastConnectionOn(int shard) {
        return acceptedByShard[shard];
    }

    /** Makes the connection actor {@code connection-n} of {@code shard} fail (Pekko's Kill: it stops with an error). */
    void failConnection(int shard, int n) {
        pekquitto().actorSystem().classicSystem().actorSelection(path(shard, n)).tell(Kill.getInstance(), ActorRef.noSender());
    }

    /** A message the test sends a shard to make it throw. */
    record InjectedFailure() implements ShardMessage {}

    /** Around each shard of the test's broker: throws on {@link InjectedFailure}, so that its supervisor restarts it. */
    static final class FailOnDemand extends BehaviorInterceptor<ShardMessage, ShardMessage> {
        FailOnDemand() {
            super(ShardMessage.class);
        }

        @Override
        public Behavior<ShardMessage> aroundReceive(TypedActorContext<ShardMessage> context, ShardMessage message,
                                                    ReceiveTarget<ShardMessage> target) {
            if (message instanceof InjectedFailure) throw new IllegalStateException("failure injected by the test");
            return target.apply(context, message);
        }
    }

    /**
     * Makes {@code shard} throw, and returns once its supervisor has restarted it: the connections it
     * had are stopped, and it names its connections from {@code connection-1} again.
     */
    void failShard(int shard) throws Exception {
        int last = acceptedByShard[shard];
        assertTrue(last > 0, "fail a shard that has connections, to see them go");
        pekquitto().actorSystem().classicSystem().actorSelection("/user/shard-" + shard)
                .tell(new InjectedFailure(), ActorRef.noSender());
        Eventually.await(Duration.ofSeconds(10), "the connections of shard-" + shard + " to be stopped",
                () -> !connectionExists(shard, last));
        acceptedByShard[shard] = 0;
        assertTrue(shardExists(shard), "shard-" + shard + " is gone instead of restarted");
    }

    private boolean shardExists(int shard) throws Exception {
        var selection = pekquitto().actorSystem().classicSystem().actorSelection("/user/shard-" + shard);
        var reply = Patterns.ask(selection, new Identify(shard), ASK_TIMEOUT).toCompletableFuture()
                .get(ASK_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
        return ((ActorIdentity) reply).getActorRef().isPresent();
    }

    int shards() {
        return shards;
    }
}
