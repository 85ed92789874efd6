package io.pekquitto.shards.transport;

import io.netty.channel.EventLoop;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ListenerTls;
import io.pekquitto.shards.transport.websocket.WebSocketUpgrade;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The sockets of one shard (docs/connections.md, The transport): each accepted socket registered on the
 * shard's event loop, the thread its connection actors run on, with a pipeline of the PROXY header's
 * decoder and TLS where its listener has them, a WebSocket listener's HTTP upgrade and frames
 * ({@link WebSocketUpgrade}), then its {@link ChannelTransport}. A connection that ends closes its
 * socket; a parked one keeps it, and any byte read resumes it.
 */
public final class ShardChannels {
    /** Where TLS handshakes' slow steps run (the engine's delegated tasks): not on the shard's thread. */
    private final Executor delegatedTasks;
    /**
     * The TLVs a PROXY v2 header may carry (a balancer's extras: TLS details, a connection id): with its
     * addresses at most 1,000 bytes, as the hand-written decoder allowed, not the 64 KiB its length field could say.
     */
    private static final int PROXY_TLV_BYTES = 768;
    /** By identity, in one open-addressed table: a HashSet's node per socket cost each idle connection 25 bytes more. */
    private final Set<ChannelTransport> open = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The largest WebSocket frame a client may send: {@code max-packet-size}. */
    private final int maxFrameSize;
    /** The WebSocket listeners' handlers, made at their first connection here. */
    private final Map<Listener, WebSocketUpgrade> webSockets = new HashMap<>();
    /** The shard's loop, as the channels' {@link EventLoop}: where they register, as Netty's own acceptor does. */
    private EventLoop loop;

    public ShardChannels(Executor delegatedTasks, int maxFrameSize) {
        this.delegatedTasks = delegatedTasks;
        this.maxFrameSize = maxFrameSize;
    }

    /**
     * A child of the shard that closes its sockets when the shard stops or restarts (its connection
     * actors stop then too), giving each its listener's place back.
     */
    public static Behavior<Void> closedWithTheShard(ShardChannels channels) {
        return Behaviors.receive(Void.class).onSignal(PostStop.class, stopped -> {
            List.copyOf(channels.open).forEach(ChannelTransport::abandoned);
            return Behaviors.same();
        }).build();
    }

    /**
     * Serves {@code socket} on the calling thread's loop, the shard's, for {@code connection}: told
     * {@link Connection.TransportReady} once registered, or {@link Connection.TransportClosed} if TLS cannot start.
     * No read is asked for here: the connection owns the demand, one chunk at a time.
     */
    public void adopt(AcceptedSocket socket, ConnectionRef connection, Optional<ListenerTls> tls, Listener listener) {
        if (loop == null) loop = ShardLoops.current();
        var channel = socket.channel();
        var remote = socket.remote();
        SslHandler tlsHandler = null;
        if (tls.isPresent()) {
            try {
                tlsHandler = tls.get().newHandler(channel.alloc(), remote, delegatedTasks);
            } catch (RuntimeException e) {
                socket.refuse();
                listener.connections().closed();
                connection.tell(new Connection.TransportClosed("TLS: " + e.getMessage()));
                return;
            }
        }
        var webSocket = listener.settings().websocket();
        var transport = new ChannelTransport(channel, connection, listener.connections(), this, tlsHandler,
                tls.map(ListenerTls::certificateNameAsUsername).orElse(false), remote);
        var pipeline = channel.pipeline();
        if (listener.expectsProxyHeader()) {
            pipeline.addLast(new ProxyHeaderStart(), new HAProxyMessageDecoder(PROXY_TLV_BYTES), new ProxyHeaderRead(transport));
        }
        if (tlsHandler != null) pipeline.addLast(tlsHandler);
        webSocket.ifPresent(settings -> webSockets.computeIfAbsent(listener, served -> new WebSocketUpgrade(settings, maxFrameSize))
                .addTo(pipeline));
        pipeline.addLast(transport);
        open.add(transport);
        // Ready once registered: a connection waiting for its CONNECT asks for bytes at once, in this turn.
        loop.register(channel).addListener(registered -> {
            if (registered.isSuccess()) connection.tell(new Connection.TransportReady(transport));
            else transport.failed("cannot register the socket: " + registered.cause());
        });
    }

    void forget(ChannelTransport transport) {
        open.remove(transport);
    }
}
