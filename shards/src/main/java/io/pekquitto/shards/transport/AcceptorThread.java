package io.pekquitto.shards.transport;

import io.netty.channel.Channel;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One listening socket on an event loop of its own: it accepts connections and hands each, unregistered
 * and unread, to {@code accepted} on that loop's thread; whoever takes it registers it on a shard's loop,
 * so every accept crosses from this thread to a shard's.
 */
final class AcceptorThread implements Acceptor {

    private final MultiThreadIoEventLoopGroup loop;
    private final Channel server;
    private final CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();

    AcceptorThread(InetSocketAddress address, String name, Consumer<AcceptedSocket> accepted) {
        var kind = SocketKind.chosen();
        loop = new MultiThreadIoEventLoopGroup(1, runnable -> {
            var thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        }, kind.handlerFactory());
        server = Accepting.newServer(accepted);
        loop.register(server).addListener(registered -> {
            if (!registered.isSuccess()) {
                bound.completeExceptionally(registered.cause());
                return;
            }
            server.bind(address).addListener(done -> {
                if (done.isSuccess()) bound.complete((InetSocketAddress) server.localAddress());
                else bound.completeExceptionally(done.cause());
            });
        });
    }

    @Override
    public CompletionStage<InetSocketAddress> bound() {
        return bound;
    }

    @Override
    public void close() {
        server.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
