package io.pekquitto.shards.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.ServerChannel;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a listening socket does with each connection it accepts, on whichever loop it is registered: hands it,
 * unregistered and unread, to {@code accepted}. Accepted sockets have {@code TCP_NODELAY} and read only when asked.
 */
final class Accepting extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(Accepting.class);
    /** How long accepting pauses after a failed accept (no file descriptor left, say), as Netty's own bootstrap does. */
    private static final long PAUSE_AFTER_FAILURE_MS = 1_000;
    /**
     * One buffer per read, as a connection's chunk: what a connection holds unread stays one buffer, and a busy
     * socket takes its turn with the shard's others (Netty's default reads up to 16 at once). One for every
     * socket: each socket's handle sizes its own buffers, and an allocator per socket cost each idle one 32 bytes.
     */
    private static final MaxMessagesRecvByteBufAllocator ONE_BUFFER_PER_READ = new AdaptiveRecvByteBufAllocator().maxMessagesPerRead(1);

    private final Consumer<AcceptedSocket> accepted;

    private Accepting(Consumer<AcceptedSocket> accepted) {
        this.accepted = accepted;
    }

    /** A listening socket of this process's {@link SocketKind}, not bound yet, that hands what it accepts to {@code accepted}. */
    static ServerChannel newServer(Consumer<AcceptedSocket> accepted) {
        var server = SocketKind.chosen().newServerChannel();
        server.config().setOption(ChannelOption.SO_BACKLOG, 1024);
        server.config().setOption(ChannelOption.SO_REUSEADDR, true);
        server.pipeline().addLast(new Accepting(accepted));
        return server;
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
