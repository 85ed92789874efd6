package io.pekquitto.bench;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * TLS between a {@link Connection} and its socket, on the JDK's {@link SSLEngine}, non-blocking: the
 * handshake is driven from the event loop's readiness, then reads unwrap and writes wrap. Each link
 * does a full handshake (no session resumption), so the connect-rate scenario measures handshakes.
 */
final class TlsLink implements Link {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** A handshake that has not finished after this many steps in one call is broken, not slow. */
    private static final int MAX_STEPS = 1_000;

    private final SSLEngine engine;
    private final SocketChannel channel;
    /** Ciphertext read and not yet unwrapped, in write mode. */
    private final ByteBuffer netIn;
    /** Ciphertext wrapped and not yet written, in write mode. */
    private final ByteBuffer netOut;
    /** Plaintext unwrapped and not yet handed on, in write mode. */
    private final ByteBuffer appIn;
    private boolean handshaken;

    TlsLink(SSLContext context, InetSocketAddress broker, SocketChannel channel) throws IOException {
        this.engine = context.createSSLEngine(broker.getHostString(), broker.getPort());
        engine.setUseClientMode(true);
        engine.setEnabledProtocols(TlsContexts.PROTOCOLS);
        this.channel = channel;
        var session = engine.getSession();
        netIn = ByteBuffer.allocate(session.getPacketBufferSize() * 2);
        netOut = ByteBuffer.allocate(session.getPacketBufferSize() * 2);
        appIn = ByteBuffer.allocate(session.getApplicationBufferSize() * 2);
        engine.beginHandshake();
    }

    @Override
    public boolean handshaken() {
        return handshaken;
    }

    /** Moves the handshake on as far as the socket allows; true once it is over and all of it sent. */
    @Override
    public boolean handshake() throws IOException {
        for (int step = 0; step < MAX_STEPS; step++) {
            switch (engine.getHandshakeStatus()) {
                case NOT_HANDSHAKING, FINISHED -> {
                    handshaken = flushPending();
                    return handshaken;
                }
                case NEED_TASK -> runTasks();
                case NEED_WRAP -> {
                    var result = engine.wrap(EMPTY, netOut);
                    if (result.getStatus() == SSLEngineResult.Status.CLOSED) throw new IOException("TLS closed in the handshake");
                    if (!flushPending() && result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) return false;
                }
                default -> {  // NEED_UNWRAP, NEED_UNWRAP_AGAIN
                    if (!flushPending()) return false;
                    var result = unwrap();
                    if (result.getStatus() == SSLEngineResult.Status.CLOSED) throw new IOException("TLS closed in the handshake");
                    if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        int read = channel.read(netIn);
                        if (read < 0) throw new EOFException("the broker closed the connection in the TLS handshake");
                        if (read == 0) return false;
                    }
                }
            }
        }
        throw new IOException("the TLS handshake made no progress");
    }

    /** Reads and decrypts into {@code dst} what the socket has; -1 at the end of the stream. */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        boolean ended = channel.read(netIn) < 0;
        while (appIn.hasRemaining()) {
            var result = unwrap();
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) ended = true;
            if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) break;
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) runTasks();
        }
        appIn.flip();
        int moved = Math.min(appIn.remaining(), dst.remaining());
        var slice = appIn.slice().limit(moved);
        dst.put(slice);
        appIn.position(appIn.position() + moved);
        appIn.compact();
        return moved == 0 && ended ? -1 : moved;
    }

    /** Whether decrypted bytes wait that did not fit the last read's buffer. */
    @Override
    public boolean hasBufferedInput() {
        return appIn.position() > 0;
    }

    /** Encrypts and writes as much of {@code src} (read mode) as the socket takes. */
    @Override
    public void write(ByteBuffer src) throws IOException {
        if (!flushPending()) return;
        while (src.hasRemaining()) {
            var result = engine.wrap(src, netOut);
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) throw new IOException("TLS closed");
            if (!flushPending()) return;
        }
    }

    /** Whether ciphertext waits for the socket to take it. */
    @Override
    public boolean hasPendingOutput() {
        return netOut.position() > 0;
    }

    private SSLEngineResult unwrap() throws IOException {
        netIn.flip();
        try {
            return engine.unwrap(netIn, appIn);
        } finally {
            netIn.compact();
        }
    }

    /** Writes pending ciphertext; whether all of it went. */
    @Override
    public boolean flushPending() throws IOException {
        if (netOut.position() == 0) return true;
        netOut.flip();
        channel.write(netOut);
        netOut.compact();
        return netOut.position() == 0;
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) task.run();
    }
}
