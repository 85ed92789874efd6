package io.pekquitto.shards.bridge;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.transport.SocketKind;
import io.pekquitto.shards.settings.BridgeSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A bridge's socket to the remote broker: a Netty channel on the shard's own event loop (the thread
 * that runs the bridge's actor), TLS with Netty's {@code SslHandler} where configured, packets read with
 * the broker's own codec. It tells the bridge what happens as {@link BridgeCommand}s naming this link, so
 * a late word from an old link is told from the current one's; the bridge writes through it.
 */
final class RemoteLink extends ChannelInboundHandlerAdapter {
    /** How long a TCP connect to the remote may take. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final ActorRef<BridgeCommand> bridge;
    private final PacketReader reader;
    private final ProtocolVersion version;
    private final boolean tls;
    private Channel channel;
    private String failure;
    private boolean opened;

    private RemoteLink(ActorRef<BridgeCommand> bridge, ProtocolVersion version, int maximumPacketSize, boolean tls) {
        this.bridge = bridge;
        this.version = version;
        this.reader = new PacketReader(maximumPacketSize, version);
        this.tls = tls;
    }

    /** Connects to {@code address} on {@code loop}; the bridge hears {@link BridgeCommand.LinkOpened} or {@link BridgeCommand.LinkClosed}. */
    static RemoteLink connect(EventLoop loop, InetSocketAddress address, String host, Optional<SslContext> tls,
                              ProtocolVersion version, int maximumPacketSize, ActorRef<BridgeCommand> bridge) {
        var link = new RemoteLink(bridge, version, maximumPacketSize, tls.isPresent());
        var bootstrap = new Bootstrap().group(loop).channel(SocketKind.chosen().clientChannelClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT.toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new io.netty.channel.ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        tls.ifPresent(context -> channel.pipeline().addLast(context.newHandler(channel.alloc(), host, address.getPort())));
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

    /** The address's host looked up: a blocking call, for a thread other than the shard's. */
    static InetSocketAddress resolve(BridgeSettings.Address address) {
        try {
            return new InetSocketAddress(InetAddress.getByName(address.host()), address.port());
        } catch (UnknownHostException e) {
            throw new CompletionException(e);
        }
    }

    /** Queues a packet; {@link #flush()} sends what was queued. */
    void send(Packet packet) {
        channel.write(Unpooled.wrappedBuffer(PacketEncoder.encode(packet, version)), channel.voidPromise());
    }

    void flush() {
        channel.flush();
    }

    /** Whether the socket takes more now; the bridge hears {@link BridgeCommand.LinkWritable} when it does again. */
    boolean isWritable() {
        return channel.isWritable();
    }

    /** Stops or resumes reading the remote: the bridge's back-pressure while its local publishes wait. */
    void reading(boolean on) {
        channel.config().setAutoRead(on);
    }

    /** Flushes what was queued and closes; the bridge hears {@link BridgeCommand.LinkClosed}. */
    void close() {
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
        bridge.tell(new BridgeCommand.LinkOpened(this));
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        var bytes = (ByteBuf) message;
        try {
            reader.feed(ByteBuffer.wrap(ByteBufUtil.getBytes(bytes)));
        } finally {
            bytes.release();
        }
        var packets = new ArrayList<Packet>();
        try {
            for (var packet = reader.poll(); packet != null; packet = reader.poll()) packets.add(packet);
        } catch (MalformedPacketException e) {
            failure = "malformed packet from the remote: " + e.getMessage();
            context.close();
        }
        if (!packets.isEmpty()) bridge.tell(new BridgeCommand.LinkPackets(this, packets));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext context) {
        if (context.channel().isWritable()) bridge.tell(new BridgeCommand.LinkWritable(this));
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
        bridge.tell(new BridgeCommand.LinkClosed(this, why));
    }
}
