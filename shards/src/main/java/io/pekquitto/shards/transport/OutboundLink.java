package io.pekquitto.shards.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.tcp.ClientTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An outbound MQTT socket (a bridge's, to its remote broker): a Netty channel on the calling shard's own
 * event loop (the thread that runs the bridge's actor), TLS with Netty's {@code SslHandler} where
 * configured, packets read with the broker's own codec. It tells its owner what happens through
 * {@link Events}, naming itself, so that a late word from an old link is told from the current one's;
 * the owner writes through it. Every method runs on the shard's thread.
 */
public final class OutboundLink extends ChannelInboundHandlerAdapter {
    /** What the link tells its owner; called on the shard's thread, outside the owner's turn: tell, do not touch state. */
    public interface Events {
        /** The socket (and TLS, if any) is up. */
        void opened(OutboundLink link);

        void received(OutboundLink link, List<Packet> packets);

        /** The socket takes writes again. */
        void writable(OutboundLink link);

        /** The link is closed, or could not connect, for {@code why}; said once. */
        void closed(OutboundLink link, String why);
    }

    /** How long a TCP connect to the remote may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final Events events;
    private final PacketReader reader;
    private final ProtocolVersion version;
    private final boolean tls;
    private Channel channel;
    private String failure;
    private boolean opened;

    private OutboundLink(Events events, ProtocolVersion version, int maximumPacketSize, boolean tls) {
        this.events = events;
        this.version = version;
        this.reader = new PacketReader(maximumPacketSize, version);
        this.tls = tls;
    }

    /**
     * Connects to {@code address} on the calling shard's loop ({@link ShardLoops#current()}); {@code host} is
     * the name the remote's certificate must carry. {@code events} hears {@code opened} or {@code closed}.
     */
    public static OutboundLink connect(InetSocketAddress address, String host, Optional<ClientTls> tls, ProtocolVersion version,
                                       int maximumPacketSize, Events events) {
        var link = new OutboundLink(events, version, maximumPacketSize, tls.isPresent());
        var bootstrap = new Bootstrap().group(ShardLoops.current()).channel(SocketKind.chosen().clientChannelClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT.toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        tls.ifPresent(client -> channel.pipeline().addLast(client.context().newHandler(channel.alloc(), host, address.getPort())));
                        channel.pipeline().addLast(link);
                    }
                });
        var future = bootstrap.connect(address);
        link.channel = future.channel();
        future.addListener((ChannelFutureListener) connected -> {
            if (!connected.isSuccess()) link.closed(String.valueOf(connected.cause().getMessage()));
        });
        return link;
    }

    /** Queues a packet; {@link #flush()} sends what was queued. */
    public void send(Packet packet) {
        channel.write(Unpooled.wrappedBuffer(PacketEncoder.encode(packet, version)), channel.voidPromise());
    }

    public void flush() {
        channel.flush();
    }

    /** Whether the socket takes more now; its owner hears {@link Events#writable} when it does again. */
    public boolean isWritable() {
        return channel.isWritable();
    }

    /** Stops or resumes reading the remote: its owner's back-pressure. */
    public void reading(boolean on) {
        channel.config().setAutoRead(on);
    }

    /** Flushes what was queued and closes; its owner hears {@link Events#closed}. */
    public void close() {
        channel.flush();
        channel.close();
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        if (!tls) open();
        context.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake) {
            if (handshake.isSuccess()) {
                open();
            } else {
                failure = "TLS handshake failed: " + handshake.cause().getMessage();
                context.close();
            }
        }
        context.fireUserEventTriggered(event);
    }

    private void open() {
        opened = true;
        events.opened(this);
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        var bytes = (ByteBuf) message;
        var packets = new ArrayList<Packet>();
        try {
            // The read's own bytes, not a copy: the reader lets go of them once it has no packet left
            // (what a packet keeps is copied out, and so is an unfinished one's start).
            reader.feed(bytes.nioBuffer());
            for (var packet = reader.poll(); packet != null; packet = reader.poll()) packets.add(packet);
        } catch (MalformedPacketException e) {
            failure = "malformed packet from the remote: " + e.getMessage();
            context.close();
        } finally {
            bytes.release();
        }
        if (!packets.isEmpty()) events.received(this, packets);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (context.channel().isWritable()) events.writable(this);
        context.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (failure == null) failure = String.valueOf(cause.getMessage());
        context.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        closed(failure != null ? failure : opened ? "the remote closed the connection" : "the connection closed before it was up");
        context.fireChannelInactive();
    }

    private void closed(String why) {
        events.closed(this, why);
    }
}
