package io.pekquitto.shards.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.auth.tls.TlsMaterial;
import io.pekquitto.auth.tls.TlsOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server {@link TlsSession} against a JDK client engine, bytes passed by hand: the handshake, records
 * that arrive a byte at a time, two sessions on one shard's scratch buffers, close_notify both ways.
 */
class TlsSessionTest {
    private static final int ROUNDS = 100;

    @TempDir
    static Path directory;
    private static TestCertificates certificates;
    private static TlsMaterial server;

    @BeforeAll
    static void makeCertificates() {
        certificates = TestCertificates.create(directory);
        server = TlsMaterial.load(new TlsOptions(certificates.server().certificateFile(), certificates.server().keyFile(),
                Optional.of(certificates.caFile()), Optional.empty(), false, true));
    }

    /** A client engine and the server session it talks to, with the client's side of the byte pumping. */
    private static final class Pair {
        final SSLEngine client;
        final TlsSession session;
        final StringBuilder received = new StringBuilder();
        ByteString toClient = ByteString.emptyByteString();
        boolean closedByPeer;

        Pair(TlsSession.Scratch scratch, Optional<TestCertificates.Issued> clientCertificate) throws SSLException {
            client = certificates.clientContext(clientCertificate).createSSLEngine("localhost", 8883);
            client.setUseClientMode(true);
            client.beginHandshake();
            session = new TlsSession(server.newServerEngine("127.0.0.1", 50000), scratch);
        }

        /** Sends the client's bytes to the session, {@code chunk} bytes at a time. */
        void toServer(ByteString ciphertext, int chunk) throws SSLException {
            for (int at = 0; at < ciphertext.size(); at += chunk) {
                var unwrapped = session.unwrap(ciphertext.slice(at, Math.min(ciphertext.size(), at + chunk)));
                received.append(unwrapped.plaintext().utf8String());
                toClient = toClient.concat(unwrapped.reply());
                closedByPeer |= unwrapped.closedByPeer();
            }
        }

        /** The client's engine, run until it has nothing more to send; returns what it sent. */
        ByteString clientSends(String plaintext) throws SSLException {
            var out = ByteBuffer.allocate(client.getSession().getPacketBufferSize());
            var source = ByteBuffer.wrap(plaintext.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            var sent = ByteString.emptyByteString();
            for (int i = 0; i < ROUNDS; i++) {
                runTasks();
                boolean wantsWrap = client.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP;
                if (!wantsWrap && !(source.hasRemaining() && handshakeDone())) break;
                out.clear();
                client.wrap(source, out);
                out.flip();
                sent = sent.concat(ByteString.fromByteBuffer(out));
            }
            return sent;
        }

        /** Lets the client read what the session sent it; returns the plaintext. */
        String clientReads() throws SSLException {
            var in = toClient.toByteBuffer();
            toClient = ByteString.emptyByteString();
            var out = ByteBuffer.allocate(client.getSession().getApplicationBufferSize() * 2);
            for (int i = 0; i < ROUNDS && in.hasRemaining(); i++) {
                var result = client.unwrap(in, out);
                runTasks();
                // The client may have to answer before it reads on: keep the rest for the next call.
                if (result.getStatus() != SSLEngineResult.Status.OK || result.bytesConsumed() == 0) break;
            }
            if (in.hasRemaining()) toClient = ByteString.fromByteBuffer(in);
            out.flip();
            return java.nio.charset.StandardCharsets.UTF_8.decode(out).toString();
        }

        boolean handshakeDone() {
            var status = client.getHandshakeStatus();
            return status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING || status == SSLEngineResult.HandshakeStatus.FINISHED;
        }

        private void runTasks() {
            Runnable task;
            while ((task = client.getDelegatedTask()) != null) task.run();
        }

        /** Client and session exchange messages until both are done with the handshake. */
        void handshake(int chunk) throws SSLException {
            for (int i = 0; i < ROUNDS && !(handshakeDone() && session.handshaken()); i++) {
                toServer(clientSends(""), chunk);
                clientReads();
            }
        }
    }

    @Test
    void theHandshakeCompletesAndDataFlowsBothWays() throws SSLException {
        var pair = new Pair(new TlsSession.Scratch(), Optional.empty());
        pair.handshake(Integer.MAX_VALUE);
        assertTrue(pair.session.handshaken());
        pair.toServer(pair.clientSends("CONNECT"), Integer.MAX_VALUE);
        assertEquals("CONNECT", pair.received.toString());
        pair.toClient = pair.session.wrap(ByteString.fromString("CONNACK"));
        assertEquals("CONNACK", pair.clientReads());
    }

    @Test
    void recordsThatArriveAByteAtATimeAreReassembled() throws SSLException {
        var pair = new Pair(new TlsSession.Scratch(), Optional.empty());
        pair.handshake(1);
        var text = "x".repeat(40_000);  // three records
        pair.toServer(pair.clientSends(text), 7);
        assertEquals(text.length(), pair.received.length());
        assertTrue(pair.received.chars().allMatch(c -> c == 'x'));
    }

    @Test
    void sessionsOfOneShardShareItsScratchBuffers() throws SSLException {
        var scratch = new TlsSession.Scratch();
        var first = new Pair(scratch, Optional.empty());
        var second = new Pair(scratch, Optional.empty());
        first.toServer(first.clientSends(""), Integer.MAX_VALUE);
        second.handshake(Integer.MAX_VALUE);
        first.clientReads();
        first.handshake(Integer.MAX_VALUE);
        first.toServer(first.clientSends("first"), 3);
        second.toServer(second.clientSends("second"), 5);
        assertEquals("first", first.received.toString());
        assertEquals("second", second.received.toString());
    }

    @Test
    void aVerifiedClientCertificateIsSeenAfterTheHandshake() throws SSLException {
        var pair = new Pair(new TlsSession.Scratch(), Optional.of(certificates.client("device-1")));
        pair.handshake(Integer.MAX_VALUE);
        pair.toServer(pair.clientSends("hello"), Integer.MAX_VALUE);  // TLS 1.3: the client's Finished comes first
        assertEquals(Optional.of("device-1"),
                io.pekquitto.auth.tls.CertificateNames.peerCommonName(pair.session.engine().getSession()));
    }

    @Test
    void closeNotifyEndsTheSessionBothWays() throws SSLException {
        var pair = new Pair(new TlsSession.Scratch(), Optional.empty());
        pair.handshake(Integer.MAX_VALUE);
        pair.client.closeOutbound();
        pair.toServer(pair.clientSends(""), Integer.MAX_VALUE);
        assertTrue(pair.closedByPeer);
        assertFalse(pair.session.close().isEmpty(), "the session answers with its own close_notify");
    }

    @Test
    void garbageInsteadOfAHandshakeFails() throws SSLException {
        var pair = new Pair(new TlsSession.Scratch(), Optional.empty());
        assertThrows(SSLException.class, () -> pair.toServer(ByteString.fromString("\u0010\u0020MQTT CONNECT in clear"), 100));
    }
}
