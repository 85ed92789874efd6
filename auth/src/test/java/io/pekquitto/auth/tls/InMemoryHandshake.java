package io.pekquitto.auth.tls;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * A TLS handshake between a client and a server engine with the bytes passed in memory, a bounded
 * number of rounds: whether it completed, or which side failed and why.
 */
record InMemoryHandshake(SSLEngine client, SSLEngine server, String protocol, SSLException failure) {
    private static final int ROUNDS = 50;

    boolean completed() {
        return failure == null && protocol != null;
    }

    boolean failed() {
        return failure != null;
    }

    static InMemoryHandshake run(SSLContext clientContext, SSLEngine server) throws SSLException {
        var client = clientContext.createSSLEngine("localhost", 8883);
        client.setUseClientMode(true);
        var clientToServer = ByteBuffer.allocate(1 << 16);
        var serverToClient = ByteBuffer.allocate(1 << 16);
        var sink = ByteBuffer.allocate(1 << 16);
        client.beginHandshake();
        server.beginHandshake();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                boolean moved = step(client, serverToClient, clientToServer, sink);
                moved |= step(server, clientToServer, serverToClient, sink);
                if (done(client) && done(server)) {
                    // TLS 1.3: the server learns of the client's certificate from the client's last flight.
                    return new InMemoryHandshake(client, server, server.getSession().getProtocol(), null);
                }
                if (!moved) break;
            }
            return new InMemoryHandshake(client, server, null, new SSLException("stalled after " + ROUNDS + " rounds"));
        } catch (SSLException e) {
            return new InMemoryHandshake(client, server, null, e);
        }
    }

    private static boolean done(SSLEngine engine) {
        return engine.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING;
    }

    /** One engine: reads what came in, runs its tasks, writes what it has; whether anything happened. */
    private static boolean step(SSLEngine engine, ByteBuffer in, ByteBuffer out, ByteBuffer sink) throws SSLException {
        boolean moved = false;
        in.flip();
        while (in.hasRemaining()) {
            var result = engine.unwrap(in, sink);
            sink.clear();
            runTasks(engine);
            if (result.bytesConsumed() == 0) break;
            moved = true;
        }
        in.compact();
        while (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            var result = engine.wrap(ByteBuffer.allocate(0), out);
            runTasks(engine);
            if (result.bytesProduced() == 0) break;
            moved = true;
        }
        runTasks(engine);
        return moved;
    }

    private static void runTasks(SSLEngine engine) {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) task.run();
    }
}
