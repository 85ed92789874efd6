package io.pekquitto.shards.transport;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Locale;

/**
 * Which of Netty's transports the shards' event loops and the listeners use: epoll where Netty's native
 * library loads (Linux), the JDK's NIO elsewhere. Every loop of one process uses the same one, because a
 * socket accepted by an epoll listener can only be registered on an epoll loop. The system property
 * {@code pekquitto.transport} ({@code auto}, {@code epoll}, {@code nio}) chooses otherwise, to compare them.
 */
public enum SocketKind {
    EPOLL, NIO;

    /** The system property that picks the transport; {@code auto} by default. */
    public static final String PROPERTY = "pekquitto.transport";

    private static final SocketKind CHOSEN = choose(System.getProperty(PROPERTY, "auto"));

    /** The transport of this process. */
    public static SocketKind chosen() {
        return CHOSEN;
    }

    static SocketKind choose(String setting) {
        return switch (setting.toLowerCase(Locale.ROOT)) {
            case "auto" -> Epoll.isAvailable() ? EPOLL : NIO;
            case "epoll" -> {
                Epoll.ensureAvailability();
                yield EPOLL;
            }
            case "nio" -> NIO;
            default -> throw new IllegalArgumentException(PROPERTY + " [" + setting + "]: expected auto, epoll or nio");
        };
    }

    IoHandlerFactory handlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** A loop that spins {@code spinNanos} (see {@link SpinThenSleep}) before it sleeps; 0 sleeps at once. */
    IoHandlerFactory handlerFactory(long spinNanos) {
        if (spinNanos <= 0) return handlerFactory();
        SelectStrategyFactory spinning = () -> new SpinThenSleep(spinNanos, System::nanoTime);
        return this == EPOLL ? EpollIoHandler.newFactory(0, spinning)
                : NioIoHandler.newFactory(SelectorProvider.provider(), spinning);
    }

    /**
     * Whether several listening sockets can share one port ({@code SO_REUSEPORT}, each shard's own): Netty
     * sets the option on its epoll sockets only.
     */
    boolean sharesPorts() {
        return this == EPOLL;
    }

    /** The class of an outbound socket (a bridge's) on this transport's loops. */
    public Class<? extends SocketChannel> clientChannelClass() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    ServerChannel newServerChannel() {
        return this == EPOLL ? new EpollServerSocketChannel() : new NioServerSocketChannel();
    }
}
