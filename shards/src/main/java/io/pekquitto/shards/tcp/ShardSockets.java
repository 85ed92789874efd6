package io.pekquitto.shards.tcp;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.listener.ProxyHeaderDecoder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.apache.pekko.actor.AbstractActorWithTimers;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.Terminated;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;

/**
 * The handler of every socket of one shard (docs/connections.md, The transport): a classic actor,
 * because Pekko IO tells a handler which connection an event is about only through its sender, which a
 * typed actor cannot see. It runs on the shard's thread, owns a {@link SocketTransport} per socket and
 * hands each event to it. A connection that ends closes its transport; a parked one keeps it, and any
 * byte read resumes it.
 */
public final class ShardSockets extends AbstractActorWithTimers {
    /** How long a closing socket keeps reading what the client still sends before it is cut. */
    static final Duration LINGER = Duration.ofSeconds(1);

    /**
     * How long a close may wait for the client to read what was written before it: a client that reads
     * nothing would otherwise keep those bytes in the heap, and its socket open, for ever.
     */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    /**
     * A socket accepted for this shard, the connection actor that serves it, its listener's TLS if any,
     * and the listener, whose place it holds until the socket closes.
     */
    public record Adopt(ActorRef socket, InetSocketAddress remote, ConnectionRef connection, Optional<ListenerTls> tls,
                        Listener listener) {}

    /** A socket has shut down its output: cut it if the client has not closed within {@link #LINGER}. */
    record Linger(ActorRef socket) {}

    private record LingerOver(ActorRef socket) {}

    /** A close was asked for with bytes still to write: cut the socket if it is still open after {@link #CLOSE_TIMEOUT}. */
    record Closing(ActorRef socket) {}

    private record CloseTimedOut(ActorRef socket) {}

    private final Map<ActorRef, SocketTransport> bySocket = new HashMap<>();
    /** The TLS engines' large buffers, shared by the shard's connections, which run on its thread one at a time. */
    private final TlsSession.Scratch tlsScratch = new TlsSession.Scratch();

    /** Run it on the shard's dispatcher: its transports are used by the shard's connection actors. */
    public static Props props() {
        return Props.create(ShardSockets.class, ShardSockets::new);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Adopt.class, this::adopt)
                .match(Tcp.Received.class, received -> {
                    var transport = bySocket.get(getSender());
                    if (transport != null) transport.received(received.data());
                })
                .match(SocketTransport.WriteAck.class, ack -> {
                    var transport = bySocket.get(getSender());
                    if (transport != null) transport.written();
                })
                .match(Tcp.ConnectionClosed.class, closed -> socketClosed(getSender(), describe(closed)))
                .match(Tcp.CommandFailed.class, failed -> {
                    // A write or close the socket could not take: it is gone for this connection.
                    getSender().tell(TcpMessage.abort(), getSelf());
                    socketClosed(getSender(), "command failed: " + failed.causedByString());
                })
                .match(Linger.class, linger -> getTimers().startSingleTimer(linger.socket(), new LingerOver(linger.socket()), LINGER))
                .match(LingerOver.class, over -> {
                    if (bySocket.containsKey(over.socket())) over.socket().tell(TcpMessage.abort(), getSelf());
                })
                .match(Closing.class, closing -> getTimers().startSingleTimer(new CloseTimedOut(closing.socket()),
                        new CloseTimedOut(closing.socket()), CLOSE_TIMEOUT))
                .match(CloseTimedOut.class, timedOut -> {
                    if (bySocket.containsKey(timedOut.socket())) timedOut.socket().tell(TcpMessage.abort(), getSelf());
                })
                .match(Terminated.class, terminated -> socketClosed(terminated.actor(), "socket actor stopped"))
                .build();
    }

    private void adopt(Adopt adopt) {
        TlsSession tls = null;
        if (adopt.tls().isPresent()) {
            try {
                tls = new TlsSession(adopt.tls().get().newEngine().apply(adopt.remote()), tlsScratch);
            } catch (SSLException e) {
                adopt.socket().tell(TcpMessage.abort(), getSelf());
                adopt.listener().connections().closed();
                adopt.connection().tell(new Connection.TransportClosed("TLS: " + e.getMessage()));
                return;
            }
        }
        var listener = adopt.listener();
        var transport = new SocketTransport(adopt.socket(), getSelf(), adopt.connection(), tls,
                adopt.tls().map(ListenerTls::certificateNameAsUsername).orElse(false), listener.connections(),
                adopt.remote(), listener.expectsProxyHeader() ? new ProxyHeaderDecoder() : null);
        bySocket.put(adopt.socket(), transport);
        getContext().watch(adopt.socket());
        adopt.socket().tell(TcpMessage.register(getSelf(), false, false), getSelf());
        // No read asked for here: the connection owns the demand, one chunk at a time. A read asked for
        // on its behalf would be a second one once it asks, and the handshake reads only up to CONNECT.
        adopt.connection().tell(new Connection.TransportReady(transport));
    }

    /**
     * The shard stops or restarts, and this actor with it: Pekko IO closes the sockets of a handler that
     * stopped, so each gives its listener's place back now (its connection actor is gone too).
     */
    @Override
    public void postStop() {
        bySocket.values().forEach(SocketTransport::abandoned);
        bySocket.clear();
    }

    private void socketClosed(ActorRef socket, String cause) {
        var transport = bySocket.remove(socket);
        if (transport == null) return;
        getTimers().cancel(socket);
        getTimers().cancel(new CloseTimedOut(socket));
        getContext().unwatch(socket);
        transport.closed(cause);
    }

    private static String describe(Tcp.ConnectionClosed closed) {
        if (closed.isPeerClosed()) return "closed by the client";
        if (closed.isErrorClosed()) return closed.getErrorCause();
        if (closed.isAborted()) return "aborted";
        return "closed";
    }
}
