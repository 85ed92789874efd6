package io.pekquitto.shards.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code reuse-port}'s sockets over real loopback connections: one listening socket per shard on one port, each
 * on a loop that stands for its shard's; the kernel spreads connections over them, each accepted on its shard's
 * thread. Needs epoll (Linux), as the setting does. Also the one shard's socket of a broker with one shard.
 */
class ShardAcceptorsTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("127.0.0.1", 0);
    /** Connections tried before both shards must have had one: the kernel's hash misses a shard 64 times in 2^63. */
    private static final int TRIES = 64;

    private final List<ExecutorService> shards = new ArrayList<>();
    private final List<Socket> clients = new ArrayList<>();
    /** What each shard's socket accepted, with the thread it was accepted on. */
    private final LinkedBlockingQueue<Accepted> accepted = new LinkedBlockingQueue<>();
    private final Map<Integer, Thread> shardThreads = new ConcurrentHashMap<>();
    private Acceptor acceptor;

    private record Accepted(int shard, Thread thread, AcceptedSocket socket) {}

    @BeforeEach
    void twoShardLoops() throws Exception {
        assumeTrue(Acceptor.canListenOnEachShard(), "SO_REUSEPORT needs the epoll transport");
        for (int i = 0; i < 2; i++) {
            int shard = i;
            var loop = ShardLoopConfigurator.loopExecutor(runnable -> new Thread(runnable, "test-shard-" + shard), 0);
            shards.add(loop);
            loop.submit(() -> shardThreads.put(shard, Thread.currentThread())).get(5, TimeUnit.SECONDS);
        }
    }

    @AfterEach
    void close() throws Exception {
        for (var client : clients) client.close();
        if (acceptor != null) acceptor.close();
        for (var loop : shards) {
            loop.shutdown();
            assertTrue(loop.awaitTermination(5, TimeUnit.SECONDS));
        }
    }

    private InetSocketAddress listen(InetSocketAddress address) {
        acceptor = Acceptor.listenOnEachShard(address, shards,
                (socket, shard) -> accepted.add(new Accepted(shard, Thread.currentThread(), socket)));
        return acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
    }

    private Accepted connect(InetSocketAddress address) throws Exception {
        clients.add(new Socket(address.getAddress(), address.getPort()));
        var socket = accepted.poll(5, TimeUnit.SECONDS);
        assertTrue(socket != null, "accepted by one of the shards");
        return socket;
    }

    @Test
    void portZeroIsChosenOnceAndEveryShardAcceptsOnItsOwnThread() throws Exception {
        var address = listen(ANY_PORT);
        assertNotEquals(0, address.getPort());

        Set<Integer> reached = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < TRIES && reached.size() < 2; i++) {
            var socket = connect(address);
            assertEquals(shardThreads.get(socket.shard()), socket.thread(), "accepted on the thread of the shard it is handed to");
            reached.add(socket.shard());
            socket.socket().refuse();
        }
        assertEquals(Set.of(0, 1), reached, "both shards' sockets listen on the one port");
    }

    @Test
    void closingClosesEveryShardsSocket() throws Exception {
        var address = listen(ANY_PORT);
        acceptor.close();
        // Each shard closes its own in a task of its loop: refused once both have run. One socket left open would
        // take every connection, so a few tries show that none is.
        for (int i = 0; i < 100 && acceptsAnyMore(address); i++) Thread.sleep(20);
        for (int i = 0; i < 8; i++) assertFalse(acceptsAnyMore(address), "connection " + i + " after close");
    }

    private boolean acceptsAnyMore(InetSocketAddress address) throws IOException {
        try (var client = new Socket(address.getAddress(), address.getPort())) {
            return true;
        } catch (SocketException refusedOrReset) {
            return false;  // refused, or reset: caught in the backlog of a socket that closed
        }
    }

    @Test
    void aPortTakenWithoutReusePortCannotBeBound() throws IOException {
        try (var taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            acceptor = Acceptor.listenOnEachShard(new InetSocketAddress("127.0.0.1", taken.getLocalPort()), shards,
                    (socket, shard) -> accepted.add(new Accepted(shard, Thread.currentThread(), socket)));
            var failure = assertThrows(CompletionException.class,
                    () -> acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join());
            assertTrue(String.valueOf(failure.getCause().getMessage()).contains("in use"), failure.getCause().toString());
        }
    }

    @Test
    void theOneShardThereIsAcceptsOnItsOwnThread() throws Exception {
        acceptor = Acceptor.listenOnTheShard(ANY_PORT, shards.get(0),
                socket -> accepted.add(new Accepted(0, Thread.currentThread(), socket)));
        var address = acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();

        var socket = connect(address);
        assertEquals(shardThreads.get(0), socket.thread(), "accepted on the shard's thread, with no listener's thread between");
        socket.socket().refuse();
    }

    @Test
    void theOneShardsSocketDoesNotShareItsPort() throws Exception {
        acceptor = Acceptor.listenOnTheShard(ANY_PORT, shards.get(0),
                socket -> accepted.add(new Accepted(0, Thread.currentThread(), socket)));
        var address = acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();

        // A second broker on the port, even one with reuse-port, stops with "address in use", as Mosquitto does.
        var second = Acceptor.listenOnEachShard(address, List.of(shards.get(1)), (socket, shard) -> socket.refuse());
        try {
            var failure = assertThrows(CompletionException.class,
                    () -> second.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join());
            assertTrue(String.valueOf(failure.getCause().getMessage()).contains("in use"), failure.getCause().toString());
        } finally {
            second.close();
        }
    }

    @Test
    void aShardDispatcherThatIsNoEventLoopFailsTheBindSayingSo() {
        Executor notALoop = Runnable::run;
        acceptor = Acceptor.listenOnEachShard(ANY_PORT, List.of(notALoop),
                (socket, shard) -> accepted.add(new Accepted(shard, Thread.currentThread(), socket)));
        var failure = assertThrows(CompletionException.class,
                () -> acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join());
        assertTrue(failure.getCause().getMessage().contains("is not an event loop's"), failure.getCause().toString());
    }
}
