package io.pekquitto.shards.transport;

import io.netty.channel.Channel;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollChannelOption;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.ObjIntConsumer;

/**
 * One listening socket per shard on the same address ({@code SO_REUSEPORT}), each registered on its shard's
 * event loop: the kernel spreads new connections over them, and the shard whose socket accepted one serves it
 * on the thread that accepted it, with no listener's thread between. Everything about shard {@code i}'s socket
 * (bind, close) runs on shard {@code i}'s loop, so its slot needs no lock. A broker of one shard has one such
 * socket, without {@code SO_REUSEPORT}: nothing to spread, and a port that no second process can share.
 */
final class ShardAcceptors implements Acceptor {
    private final List<? extends Executor> shardDispatchers;
    private final ObjIntConsumer<AcceptedSocket> accepted;
    /** Whether the sockets share the port ({@code SO_REUSEPORT}); a single shard's does not need to. */
    private final boolean reusePort;
    /** Shard {@code i}'s socket, set and read on shard {@code i}'s loop only. */
    private final Channel[] servers;
    private final CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
    private volatile boolean closed;

    ShardAcceptors(InetSocketAddress address, List<? extends Executor> shardDispatchers, ObjIntConsumer<AcceptedSocket> accepted,
                   boolean reusePort) {
        if (reusePort && !SocketKind.chosen().sharesPorts()) throw new IllegalStateException("SO_REUSEPORT needs the epoll transport");
        if (shardDispatchers.isEmpty()) throw new IllegalArgumentException("no shard to listen on");
        if (!reusePort && shardDispatchers.size() > 1) throw new IllegalArgumentException("shards share a port only with SO_REUSEPORT");
        this.shardDispatchers = List.copyOf(shardDispatchers);
        this.accepted = accepted;
        this.reusePort = reusePort;
        this.servers = new Channel[shardDispatchers.size()];
        bindOn(0, address);
    }

    /**
     * Binds shard {@code shard}'s socket to {@code address} on the shard's loop, then the next shard's to the
     * address it got (the port the first one chose, if 0 was asked for), one after another; bound once all are.
     */
    private void bindOn(int shard, InetSocketAddress address) {
        onLoop(shard, () -> {
            if (closed) {
                bound.completeExceptionally(new IllegalStateException("closed before it was bound"));
                return;
            }
            IoEventLoop loop;
            try {
                loop = ShardLoops.current();
            } catch (IllegalStateException notALoop) {  // an embedder's dispatcher of another kind: said at bind
                bound.completeExceptionally(notALoop);
                return;
            }
            var server = Accepting.newServer(socket -> accepted.accept(socket, shard));
            if (reusePort) server.config().setOption(EpollChannelOption.SO_REUSEPORT, true);
            servers[shard] = server;
            loop.register(server).addListener(registered -> {
                if (!registered.isSuccess()) {
                    bound.completeExceptionally(registered.cause());
                    return;
                }
                server.bind(address).addListener(done -> {
                    if (!done.isSuccess()) {
                        bound.completeExceptionally(done.cause());
                    } else if (closed) {  // close() found it still registering
                        server.close();
                        bound.completeExceptionally(new IllegalStateException("closed before it was bound"));
                    } else if (shard + 1 < servers.length) {
                        bindOn(shard + 1, (InetSocketAddress) server.localAddress());
                    } else {
                        bound.complete((InetSocketAddress) server.localAddress());
                    }
                });
            });
        });
    }

    @Override
    public CompletionStage<InetSocketAddress> bound() {
        return bound;
    }

    /** Each shard closes its socket on its loop; one bound after this is not bound at all. */
    @Override
    public void close() {
        closed = true;
        for (int shard = 0; shard < servers.length; shard++) {
            int closing = shard;
            onLoop(shard, () -> {
                if (servers[closing] != null && servers[closing].isRegistered()) servers[closing].close();
            });
        }
    }

    private void onLoop(int shard, Runnable task) {
        try {
            shardDispatchers.get(shard).execute(task);
        } catch (RejectedExecutionException stopped) {
            // The shard's loop has ended, and closed every socket on it.
            bound.completeExceptionally(stopped);
        }
    }
}
