package io.pekquitto.shards.connection;

import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.pekko.util.ByteString;

/**
 * The socket side of a connection, as its {@link Connection} actor sees it: bytes out, demand for bytes
 * in, close. {@code transport.ChannelTransport} implements it over Netty, for every kind of listener (TCP,
 * TLS, WebSocket); tests implement it in memory.
 * Reads are pulled: the transport delivers one chunk ({@link Connection.BytesReceived}) and waits for
 * {@link #readMore()}, so a busy connection stops reading its socket instead of buffering.
 */
public interface Transport {
    /** Queues bytes for the client; the transport coalesces queued writes into as few socket writes as it can. */
    void write(ByteString bytes);

    /** Asks for the next chunk of bytes from the client. */
    void readMore();

    /** Flushes what was written, then closes the connection. Idempotent. */
    void close();

    /**
     * Closes the connection at once, dropping what was written and not yet sent: for a client that does
     * not read, whose unsent bytes would otherwise stay in the heap while a close waits for them.
     */
    default void abort() {
        close();
    }

    /** Bytes written but not yet handed to the socket: the measure of a slow reader. */
    long bufferedBytes();

    /**
     * Tells the connection {@link Connection.WritesTaken} once, when what was written so far has been handed
     * on towards the socket (now, if it has): the cue of a connection that paces what it writes by the
     * socket (the retained messages of a SUBSCRIBE). Nothing once closed.
     */
    void tellWhenTaken();

    /**
     * The client's address: the one the PROXY protocol header named on a listener that reads one
     * (known before the first byte reaches the connection), else the socket's peer. Ask it when needed
     * rather than keep it: the connection log, the authenticator and the ACLs all get this one.
     */
    InetSocketAddress remoteAddress();

    /**
     * The subject CN of the client's certificate, if a TLS listener with {@code cert-cn-as-username}
     * verified one: it may stand for the username.
     */
    default Optional<String> peerCommonName() {
        return Optional.empty();
    }
}
