package io.pekquitto.shards.tcp;

import io.pekquitto.auth.tls.CertificateNames;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.ConnectionCount;
import io.pekquitto.shards.listener.ProxyHeader;
import io.pekquitto.shards.listener.ProxyHeaderDecoder;
import io.pekquitto.shards.listener.ProxyHeaderException;
import java.net.InetSocketAddress;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;

/**
 * One client socket as its {@link Connection} sees it, over a Pekko IO connection actor in pull mode:
 * no stream, no stage, one object. Reads come one chunk per {@link #readMore()}; writes go one at a
 * time with an acknowledgement, and what the connection writes meanwhile is concatenated (a rope, no
 * copy) into the next one. On a TLS listener a {@link TlsSession} sits between the socket and the
 * connection: the connection sees plaintext only, and a chunk that decrypts to nothing (the handshake,
 * part of a record) is followed by another read before the connection hears anything. Every method runs
 * on the shard's thread: the connection actor and the shard's {@link ShardSockets} share it, so nothing
 * here is synchronized.
 */
final class SocketTransport implements Transport {
    /** The acknowledgement of a write: the bytes are in the socket's buffer. */
    static final class WriteAck implements Tcp.Event {
        static final WriteAck INSTANCE = new WriteAck();

        private WriteAck() {}
    }

    private final ActorRef socket;
    private final ActorRef sockets;
    private final ConnectionRef connection;
    /** TLS on this socket, or null for plain TCP. */
    private final TlsSession tls;
    private final boolean certificateNameAsUsername;
    /** Its listener's count, which it leaves once closed. */
    private final ConnectionCount listenerCount;
    /** The client's address: the socket's peer, until a PROXY header names another. */
    private InetSocketAddress remote;
    /** The PROXY header still to read before any byte goes on (TLS included); null once read, or on other listeners. */
    private ProxyHeaderDecoder proxyHeader;
    /** Plaintext from the connection, not yet written (nor, with TLS, encrypted). */
    private ByteString pending = ByteString.emptyByteString();
    /** Ciphertext that TLS itself has to send: handshake messages, close_notify. */
    private ByteString pendingTls = ByteString.emptyByteString();
    private int writing;
    /** A ResumeReading is out and no chunk has come since: asking again would only wake the selector. */
    private boolean reading;
    private boolean closeRequested;
    /** Reset by the broker: nothing is written any more, the socket's close follows. */
    private boolean aborted;
    private boolean closed;

    /**
     * @param socket     Pekko IO's actor of this connection
     * @param sockets    the shard's {@link ShardSockets}, registered as its handler: acknowledgements come back there
     * @param connection the connection the bytes are for, live or parked
     * @param tls        TLS on this socket, or null
     * @param certificateNameAsUsername whether a verified client certificate's CN may stand for the username
     * @param listenerCount its listener's open connections, this one counted in
     * @param remote     the socket's peer
     * @param proxyHeader the decoder of the PROXY header the connection must begin with, or null if none is read
     */
    SocketTransport(ActorRef socket, ActorRef sockets, ConnectionRef connection, TlsSession tls,
                    boolean certificateNameAsUsername, ConnectionCount listenerCount, InetSocketAddress remote,
                    ProxyHeaderDecoder proxyHeader) {
        this.socket = socket;
        this.sockets = sockets;
        this.connection = connection;
        this.tls = tls;
        this.certificateNameAsUsername = certificateNameAsUsername;
        this.listenerCount = listenerCount;
        this.remote = remote;
        this.proxyHeader = proxyHeader;
    }

    @Override
    public void write(ByteString bytes) {
        if (closed || closeRequested) return;
        pending = pending.concat(bytes);
        if (writing == 0) flush();
    }

    @Override
    public void readMore() {
        if (closed || reading) return;
        reading = true;
        socket.tell(TcpMessage.resumeReading(), sockets);
    }

    @Override
    public void close() {
        if (closed || closeRequested) return;
        closeRequested = true;
        if (tls != null) {
            // The last plaintext, then close_notify, in that order: the engine encrypts nothing after it.
            if (!pending.isEmpty() && tls.handshaken()) {
                pendingTls = pendingTls.concat(encrypt(pending));
                pending = ByteString.emptyByteString();
            }
            try {
                pendingTls = pendingTls.concat(tls.close());
            } catch (SSLException e) {
                // The connection ends either way; the client just gets no close_notify.
            }
        }
        if (writing == 0) flush();
        // Bytes still to write: the client may never read them.
        if (writing != 0) sockets.tell(new ShardSockets.Closing(socket), ActorRef.noSender());
    }

    /** The socket is reset: Pekko IO drops its write in progress, and this drops what waits behind it. */
    @Override
    public void abort() {
        if (closed || aborted) return;
        closeRequested = true;
        aborted = true;
        writing = 0;
        pending = ByteString.emptyByteString();
        pendingTls = ByteString.emptyByteString();
        socket.tell(TcpMessage.abort(), sockets);
    }

    @Override
    public long bufferedBytes() {
        return writing + pending.size() + pendingTls.size();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public Optional<String> peerCommonName() {
        if (tls == null || !certificateNameAsUsername) return Optional.empty();
        return CertificateNames.peerCommonName(tls.engine().getSession());
    }

    // ---- from the shard's ShardSockets

    void received(ByteString data) {
        reading = false;
        if (closeRequested) {
            socket.tell(TcpMessage.resumeReading(), sockets);  // lingering: read on, and drop it
            return;
        }
        if (proxyHeader != null) {
            data = afterProxyHeader(data);
            if (data == null) return;
        }
        if (tls == null) {
            connection.tell(new Connection.BytesReceived(data));
            return;
        }
        TlsSession.Unwrapped unwrapped;
        try {
            unwrapped = tls.unwrap(data);
        } catch (SSLException e) {
            // A failed handshake or a forged record: the engine's alert, if it made one, is lost with the socket.
            socket.tell(TcpMessage.abort(), sockets);
            closed("TLS: " + e.getMessage());
            return;
        }
        if (!unwrapped.reply().isEmpty()) {
            pendingTls = pendingTls.concat(unwrapped.reply());
            if (writing == 0) flush();
        }
        if (unwrapped.closedByPeer()) {
            close();
        } else if (!unwrapped.plaintext().isEmpty()) {
            connection.tell(new Connection.BytesReceived(unwrapped.plaintext()));
        } else {
            readMore();  // the connection's demand is still open: the bytes it asked for are yet to come
        }
    }

    /**
     * Reads the PROXY header from the chunk: the bytes after it, for TLS or the connection; or null once
     * the chunk is used up (more is read) or the header is invalid (the socket is cut, the connection told).
     */
    private ByteString afterProxyHeader(ByteString data) {
        var bytes = data.asByteBuffer();
        ProxyHeader header;
        try {
            header = proxyHeader.feed(bytes);
        } catch (ProxyHeaderException e) {
            socket.tell(TcpMessage.abort(), sockets);
            closed("PROXY protocol: " + e.getMessage());
            return null;
        }
        if (header != null) {
            proxyHeader = null;
            remote = header.clientAddress(remote);
            data = data.drop(bytes.position());
        }
        if (header == null || data.isEmpty()) {
            readMore();  // the connection's demand is still open: its bytes are yet to come
            return null;
        }
        return data;
    }

    void written() {
        if (aborted) return;
        writing = 0;
        flush();
    }

    /** The socket closed, whoever closed it; the connection hears of it once, and the listener has a place again. */
    void closed(String cause) {
        if (closed) return;
        abandoned();
        connection.tell(new Connection.TransportClosed(cause));
    }

    /** The socket closes with its handler, the connection's actor is gone: only the listener's place is given back. */
    void abandoned() {
        if (closed) return;
        closed = true;
        pending = ByteString.emptyByteString();
        pendingTls = ByteString.emptyByteString();
        listenerCount.closed();
    }

    private void flush() {
        var bytes = pendingTls;
        pendingTls = ByteString.emptyByteString();
        if (!pending.isEmpty() && (tls == null || tls.handshaken())) {
            bytes = bytes.concat(tls == null ? pending : encrypt(pending));
            pending = ByteString.emptyByteString();
        }
        if (!bytes.isEmpty()) {
            writing = bytes.size();
            socket.tell(TcpMessage.write(bytes, WriteAck.INSTANCE), sockets);
        } else if (closeRequested && !closed) {
            // After the last write: our side of the stream ends (FIN), the client's may go on for a while.
            socket.tell(TcpMessage.confirmedClose(), sockets);
            socket.tell(TcpMessage.resumeReading(), sockets);
            sockets.tell(new ShardSockets.Linger(socket), ActorRef.noSender());
        }
    }

    private ByteString encrypt(ByteString plaintext) {
        try {
            return tls.wrap(plaintext);
        } catch (SSLException e) {
            socket.tell(TcpMessage.abort(), sockets);
            closed("TLS: " + e.getMessage());
            return ByteString.emptyByteString();
        }
    }
}
