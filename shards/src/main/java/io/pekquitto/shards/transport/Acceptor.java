package io.pekquitto.shards.transport;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

/**
 * A listener's listening sockets: they accept connections and hand each, unregistered and unread, to the
 * listener, which hands it to a shard (registered there on the shard's loop) or refuses it. Accepted sockets
 * have {@code TCP_NODELAY} and read only when asked.
 */
public interface Acceptor extends AutoCloseable {

    /**
     * One socket on {@code address}, on an event loop of its own, on a thread named {@code name}: each socket it
     * accepts goes to {@code accepted} on that thread, and crosses to the thread of the shard that serves it.
     */
    static Acceptor listen(InetSocketAddress address, String name, Consumer<AcceptedSocket> accepted) {
        return new AcceptorThread(address, name, accepted);
    }

    /**
     * One socket per shard on {@code address} ({@code SO_REUSEPORT}; port 0: the first picks the port, the
     * others take the same), each on its shard's loop, found by running a task on {@code shardDispatchers}: the
     * kernel spreads connections over them, and each socket a shard's one accepts goes to {@code accepted} with
     * the shard's index, on that shard's thread. Only where {@link #canListenOnEachShard()}.
     */
    static Acceptor listenOnEachShard(InetSocketAddress address, List<? extends Executor> shardDispatchers,
                                      ObjIntConsumer<AcceptedSocket> accepted) {
        return new ShardAcceptors(address, shardDispatchers, accepted, true);
    }

    /**
     * One socket on {@code address} on the loop of the one shard there is, found by running a task on
     * {@code shardDispatcher}: it serves what it accepts on the thread that accepted it, as {@link
     * #listenOnEachShard} does, with any transport and no {@code SO_REUSEPORT}.
     */
    static Acceptor listenOnTheShard(InetSocketAddress address, Executor shardDispatcher, Consumer<AcceptedSocket> accepted) {
        return new ShardAcceptors(address, List.of(shardDispatcher), (socket, shard) -> accepted.accept(socket), false);
    }

    /** Whether {@link #listenOnEachShard} works here: Netty sets {@code SO_REUSEPORT} on its epoll sockets only. */
    static boolean canListenOnEachShard() {
        return SocketKind.chosen().sharesPorts();
    }

    /** The address bound (the port chosen, if 0 was asked for), or why it could not bind. */
    CompletionStage<InetSocketAddress> bound();

    /** Closes the listening sockets; connections accepted before go on. */
    @Override
    void close();
}
