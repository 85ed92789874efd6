package io.pekquitto.shards.listener.actor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.broker.Broker;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.transport.Acceptor;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code reuse-port} listener on two shards' dispatchers as the broker configures them (each a Netty event
 * loop): connections reach both shards, each handed to the shard whose thread accepted it and counted in there;
 * {@code max-connections} holds across the shards' sockets; unbinding closes them all.
 */
class ReusePortListenerTest {
    /** Connections tried before both shards must have had one: the kernel's hash misses a shard 64 times in 2^63. */
    private static final int TRIES = 64;

    private final ActorTestKit testKit = ActorTestKit.create(Broker.dispatcherConfig(2));
    private final List<TestProbe<ShardMessage>> shards = List.of(testKit.createTestProbe(), testKit.createTestProbe());
    private final List<Executor> dispatchers = new ArrayList<>();
    private final List<Thread> shardThreads = new ArrayList<>();
    /** Each shard the listener counted a connection in on, and the thread it did so on. */
    private final LinkedBlockingQueue<Integer> countedIn = new LinkedBlockingQueue<>();
    private final ConcurrentLinkedQueue<Thread> countingThreads = new ConcurrentLinkedQueue<>();
    private final TestProbe<ListenerReport> reports = testKit.createTestProbe();
    private final List<Socket> clients = new ArrayList<>();
    private org.apache.pekko.actor.ActorRef listenerActor;

    private final ConnectionPlacement placement = new ConnectionPlacement() {
        @Override
        public ActorRef<ShardMessage> next() {
            throw new AssertionError("a reuse-port listener's shard accepts its own connections");
        }

        @Override
        public ActorRef<ShardMessage> acceptedBy(int index) {
            countingThreads.add(Thread.currentThread());
            countedIn.add(index);
            return shards.get(index).getRef();
        }
    };

    @BeforeEach
    void shardDispatchers() throws Exception {
        assumeTrue(Acceptor.canListenOnEachShard(), "SO_REUSEPORT needs the epoll transport");
        for (int i = 0; i < 2; i++) {
            var dispatcher = testKit.system().dispatchers().lookup(DispatcherSelector.fromConfig(Broker.dispatcherPath(i)));
            dispatchers.add(dispatcher);
            var thread = new CompletableFuture<Thread>();
            dispatcher.execute(() -> thread.complete(Thread.currentThread()));
            shardThreads.add(thread.get(5, TimeUnit.SECONDS));
        }
    }

    @AfterEach
    void close() throws IOException {
        for (var client : clients) client.close();
        testKit.shutdownTestKit();
    }

    private Listener reusePortListener(int maxConnections) {
        return Listener.of(0, new ListenerSettings("127.0.0.1", 0, Optional.empty(), Optional.empty(), false, maxConnections,
                EnumSet.allOf(ProtocolVersion.class), true));
    }

    private InetSocketAddress bind(Listener listener) {
        // A classic actor, as the broker's child: spawned by a typed parent (the test kit's guardian spawns typed only).
        var spawned = new CompletableFuture<org.apache.pekko.actor.ActorRef>();
        testKit.spawn(Behaviors.setup(context -> {
            spawned.complete(Adapter.actorOf(context, TcpListener.props(listener, placement, dispatchers, reports.getRef())));
            return Behaviors.empty();
        }));
        listenerActor = spawned.orTimeout(5, TimeUnit.SECONDS).join();
        var address = assertInstanceOf(ListenerReport.Bound.class, reports.receiveMessage()).address();
        assertNotEquals(0, address.getPort(), "port 0: the first shard's socket picks it, the other binds the same");
        return address;
    }

    private void connect(InetSocketAddress address) throws IOException {
        clients.add(new Socket(address.getAddress(), address.getPort()));
    }

    @Test
    void connectionsReachBothShardsEachOnTheThreadThatAcceptedIt() throws Exception {
        var address = bind(reusePortListener(ListenerSettings.UNLIMITED));
        var reached = new boolean[2];
        for (int i = 0; i < TRIES && !(reached[0] && reached[1]); i++) {
            connect(address);
            var shard = countedIn.poll(5, TimeUnit.SECONDS);
            assertNotNull(shard, "a shard's socket accepted it");
            assertEquals(shardThreads.get(shard), countingThreads.poll(), "handed over on the thread of the shard that accepted it");
            shards.get(shard).expectMessageClass(ListenerRequest.Accept.class).socket().refuse();
            reached[shard] = true;
        }
        assertTrue(reached[0] && reached[1], "the kernel spread connections over both shards' sockets");
        shards.forEach(shard -> shard.expectNoMessage(Duration.ofMillis(100)));
    }

    @Test
    void maxConnectionsHoldsAcrossTheShardsSockets() throws Exception {
        var listener = reusePortListener(3);
        var address = bind(listener);
        for (int i = 0; i < 4; i++) connect(address);
        for (int i = 0; i < 100 && listener.connections().refused() == 0; i++) Thread.sleep(20);
        assertEquals(1, listener.connections().refused(), "the fourth, on whichever shard it landed");
        assertEquals(3, listener.connections().open());
        assertEquals(3, countedIn.size(), "a refused connection is counted in on no shard");
    }

    @Test
    void unbindClosesEveryShardsSocket() throws Exception {
        var address = bind(reusePortListener(ListenerSettings.UNLIMITED));
        listenerActor.tell(ListenerCommand.Unbind.INSTANCE, org.apache.pekko.actor.ActorRef.noSender());
        // One socket left open would take every connection, so a few refused tries show that none is.
        for (int i = 0; i < 100 && acceptsAnyMore(address); i++) Thread.sleep(20);
        for (int i = 0; i < 8; i++) assertFalse(acceptsAnyMore(address), "connection " + i + " after unbind");
    }

    private static boolean acceptsAnyMore(InetSocketAddress address) throws IOException {
        try (var client = new Socket(address.getAddress(), address.getPort())) {
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }
}
