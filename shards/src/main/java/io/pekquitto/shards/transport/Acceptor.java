package io.pekquitto.shards.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listening socket on an event loop of its own: it accepts connections and hands each, unregistered
 * and unread, to {@code accepted} on that loop's thread; whoever takes it registers it on a shard's loop.
 * Accepted sockets have {@code TCP_NODELAY} and read only when asked.
 */
public final class Acceptor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Acceptor.class);
    /** How long accepting pauses after a failed accept (no file descriptor left, say), as Netty's own bootstrap does. */
    private static final long PAUSE_AFTER_FAILURE_MS = 1_000;
    /**
     * One buffer per read, as a connection's chunk: what a connection holds unread stays one buffer, and a busy
     * socket takes its turn with the shard's others (Netty's default reads up to 16 at once). One for every
     * socket: each socket's handle sizes its own buffers, and an allocator per socket cost each idle one 32 bytes.
     */
    private static final MaxMessagesRecvByteBufAllocator ONE_BUFFER_PER_READ = new AdaptiveRecvByteBufAllocator().maxMessagesPerRead(1);

    private final MultiThreadIoEventLoopGroup loop;
    private final Channel server;
    private final CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();

    private Acceptor(InetSocketAddress address, String name, Consumer<AcceptedSocket> accepted) {
        var kind = SocketKind.chosen();
        loop = new MultiThreadIoEventLoopGroup(1, runnable -> {
            var thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        }, kind.handlerFactory());
        server = kind.newServerChannel();
        server.config().setOption(ChannelOption.SO_BACKLOG, 1024);
        server.config().setOption(ChannelOption.SO_REUSEADDR, true);
        server.pipeline().addLast(new Accepting(accepted));
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

    /** Listens on {@code address}, on a thread named {@code name}; {@link #bound()} tells whether it could bind. */
    public static Acceptor listen(InetSocketAddress address, String name, Consumer<AcceptedSocket> accepted) {
        return new Acceptor(address, name, accepted);
    }

    /** The address bound (the port chosen, if 0 was asked for), or why it could not bind. */
    public CompletionStage<InetSocketAddress> bound() {
        return bound;
    }

    /** Closes the listening socket; connections accepted before go on. */
    @Override
    public void close() {
        server.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static final class Accepting extends ChannelInboundHandlerAdapter {
        private final Consumer<AcceptedSocket> accepted;

        Accepting(Consumer<AcceptedSocket> accepted) {
            this.accepted = accepted;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            var socket = (Channel) message;
            socket.config().setOption(ChannelOption.TCP_NODELAY, true);
            socket.config().setAutoRead(false);  // until its connection first asks (ChannelTransport.readMore)
            socket.config().setRecvByteBufAllocator(ONE_BUFFER_PER_READ);
            accepted.accept(new AcceptedSocket(socket));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable failure) {
            LOG.warn("{}: accepting paused for {} ms: {}", ctx.channel().localAddress(), PAUSE_AFTER_FAILURE_MS, failure.toString());
            var config = ctx.channel().config();
            config.setAutoRead(false);
            ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), PAUSE_AFTER_FAILURE_MS, TimeUnit.MILLISECONDS);
        }
    }
}
