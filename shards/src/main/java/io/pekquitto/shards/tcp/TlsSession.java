package io.pekquitto.shards.tcp;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.apache.pekko.util.ByteString;

/**
 * TLS for one connection, on the JDK's {@link SSLEngine}, run on the shard's thread inside the
 * connection's transport (docs/security.md, TLS). Between calls it keeps only the engine and the
 * ciphertext of a record that has not fully arrived: the large network and application buffers the
 * engine needs are the shard's {@link Scratch}, used within one call and copied out of, so an idle TLS
 * connection holds no buffer at all (Pekko's TLS stage keeps four of 16-18 KiB per connection).
 */
final class TlsSession {

    /** One shard's buffers for the engine's output: every connection of the shard uses them in turn. */
    static final class Scratch {
        private ByteBuffer application = ByteBuffer.allocate(0);
        private ByteBuffer network = ByteBuffer.allocate(0);
        private ByteBuffer input = ByteBuffer.allocate(0);

        /**
         * The ciphertext to unwrap, in a writable buffer: the engine decrypts in place, and a
         * ByteString's buffers are read-only.
         */
        ByteBuffer input(ByteString ciphertext) {
            if (input.capacity() < ciphertext.size()) input = ByteBuffer.allocate(Math.max(ciphertext.size(), 2 * input.capacity()));
            input.clear();
            ciphertext.copyToBuffer(input);
            return input.flip();
        }

        /** Grows the buffers to what the engine's session may produce (about 16.7 KiB each). */
        void fit(SSLEngine engine) {
            var session = engine.getSession();
            if (application.capacity() < session.getApplicationBufferSize()) {
                application = ByteBuffer.allocate(session.getApplicationBufferSize());
            }
            if (network.capacity() < session.getPacketBufferSize()) network = ByteBuffer.allocate(session.getPacketBufferSize());
        }

        /** After an overflow: twice the size, as the session's sizes did not grow (a peer's larger records). */
        void grow(boolean applicationSide) {
            if (applicationSide) {
                application = ByteBuffer.allocate(application.capacity() * 2);
            } else {
                network = ByteBuffer.allocate(network.capacity() * 2);
            }
        }
    }

    /**
     * What one chunk from the socket gave: plaintext for the connection, bytes to send back (handshake
     * messages, session tickets, an alert) and whether the client ended TLS with close_notify.
     */
    record Unwrapped(ByteString plaintext, ByteString reply, boolean closedByPeer) {}

    private static final ByteBuffer[] NOTHING = {ByteBuffer.allocate(0)};
    /** Records are at most 2^14 bytes of plaintext (RFC 8446, 5.1), under 17 KiB encrypted: far below this. */
    private static final int MAX_BUFFER = 1 << 17;

    private final SSLEngine engine;
    private final Scratch scratch;
    /** Ciphertext of an unfinished record. */
    private ByteString partialRecord = ByteString.emptyByteString();
    private boolean handshaken;

    TlsSession(SSLEngine engine, Scratch scratch) throws SSLException {
        this.engine = engine;
        this.scratch = scratch;
        engine.beginHandshake();
    }

    /** Whether the handshake is over, so that application data can be sent. */
    boolean handshaken() {
        return handshaken;
    }

    SSLEngine engine() {
        return engine;
    }

    /** Decrypts a chunk from the socket; whatever the handshake needs to send goes in the reply. */
    Unwrapped unwrap(ByteString ciphertext) throws SSLException {
        var input = scratch.input(partialRecord.concat(ciphertext));
        partialRecord = ByteString.emptyByteString();
        var plaintext = ByteString.emptyByteString();
        var reply = ByteString.emptyByteString();
        boolean closed = false;
        while (true) {
            scratch.fit(engine);
            var out = scratch.application;
            out.clear();
            var result = engine.unwrap(input, out);
            noteFinished(result);
            plaintext = plaintext.concat(copyOut(out));
            var status = result.getStatus();
            if (status == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                growBeyond(out, true);
                continue;
            }
            var sent = handshake();
            reply = reply.concat(sent);
            if (status == SSLEngineResult.Status.CLOSED) {
                closed = true;
                break;
            }
            // Underflow: the rest of a record is still to come. No progress at all: nothing more to do now.
            if (status == SSLEngineResult.Status.BUFFER_UNDERFLOW || !input.hasRemaining()) break;
            if (result.bytesConsumed() == 0 && result.bytesProduced() == 0 && sent.isEmpty()) break;
        }
        if (input.hasRemaining()) partialRecord = ByteString.fromByteBuffer(input);  // a copy of just the rest
        return new Unwrapped(plaintext, reply, closed);
    }

    /** Encrypts application data; call it only once {@link #handshaken()}. */
    ByteString wrap(ByteString plaintext) throws SSLException {
        var parts = new java.util.ArrayList<ByteBuffer>();
        plaintext.getByteBuffers().forEach(parts::add);
        var sources = parts.toArray(new ByteBuffer[0]);
        var ciphertext = ByteString.emptyByteString();
        while (hasRemaining(sources)) {
            var result = wrapInto(sources);
            ciphertext = ciphertext.concat(result).concat(handshake());
            if (engine.isOutboundDone()) break;
        }
        return ciphertext;
    }

    /** close_notify, to send before the socket's output is shut. */
    ByteString close() throws SSLException {
        engine.closeOutbound();
        return handshake();
    }

    /**
     * What the engine needs next, done: delegated tasks run here (the key exchange and certificate
     * checks, about a millisecond once per connection), messages to send are wrapped and returned.
     */
    private ByteString handshake() throws SSLException {
        var reply = ByteString.emptyByteString();
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) task.run();
                }
                case NEED_WRAP -> {
                    var bytes = wrapInto(NOTHING);
                    reply = reply.concat(bytes);
                    if (engine.isOutboundDone() || bytes.isEmpty() && engine.getHandshakeStatus()
                            == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                        return reply;
                    }
                }
                default -> {
                    return reply;
                }
            }
        }
    }

    /** One wrap into the scratch buffer, copied out. */
    private ByteString wrapInto(ByteBuffer[] sources) throws SSLException {
        while (true) {
            scratch.fit(engine);
            var out = scratch.network;
            out.clear();
            var result = engine.wrap(sources, out);
            noteFinished(result);
            if (result.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) return copyOut(out);
            growBeyond(out, false);
        }
    }

    /** An overflowing buffer grows, with the session's sizes or past them, but not without bound. */
    private void growBeyond(ByteBuffer overflowed, boolean applicationSide) throws SSLException {
        scratch.fit(engine);
        var now = applicationSide ? scratch.application : scratch.network;
        if (now.capacity() > overflowed.capacity()) return;
        if (now.capacity() >= MAX_BUFFER) throw new SSLException("a TLS record larger than " + MAX_BUFFER + " bytes");
        scratch.grow(applicationSide);
    }

    private void noteFinished(SSLEngineResult result) {
        if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) handshaken = true;
    }

    private static ByteString copyOut(ByteBuffer buffer) {
        buffer.flip();
        return buffer.hasRemaining() ? ByteString.fromByteBuffer(buffer) : ByteString.emptyByteString();
    }

    private static boolean hasRemaining(ByteBuffer[] buffers) {
        for (var buffer : buffers) {
            if (buffer.hasRemaining()) return true;
        }
        return false;
    }
}
