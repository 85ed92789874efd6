package io.pekquitto.shards.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.ListenerSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shard's sockets over real loopback connections: an {@link Acceptor}, a loop that stands for the shard's
 * thread, and a probe for the connection. Every call into the transport runs on that loop, as the
 * connection actor's would.
 */
class ShardChannelsTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(200);
    private static final ByteString CONNECT_START = ByteString.fromArray(new byte[] {0x10, 0x0c, 0x00, 0x04, 'M', 'Q', 'T', 'T'});

    @RegisterExtension
    final LoopbackShard shard = new LoopbackShard(1024 * 1024);
    private final TestProbe<Connection.Command> connection = testKit.createTestProbe();
    private Socket client;
    private Transport transport;
    private Listener listener;

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    /** A client connects to a listener of {@code settings}, and the shard adopts its socket. */
    private void connect(boolean proxyProtocol) throws Exception {
        listener = Listener.of(0, new ListenerSettings("127.0.0.1", 0, Optional.empty(), Optional.empty(), proxyProtocol, 1,
                EnumSet.allOf(ProtocolVersion.class)));
        client = shard.connect(listener, connection.getRef());
        transport = assertInstanceOf(Connection.TransportReady.class, connection.receiveMessage()).transport();
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return shard.onLoop(task);
    }

    private void send(ByteString bytes) throws IOException {
        client.getOutputStream().write(bytes.toArray());
        client.getOutputStream().flush();
    }

    private ByteString readMore() throws Exception {
        onLoop(() -> {
            transport.readMore();
            return null;
        });
        return assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes();
    }

    private static byte[] readExactly(InputStream in, int count) throws IOException {
        return in.readNBytes(count);
    }

    @Test
    void nothingIsReadUntilTheConnectionAsksAndThenOneChunkAtATime() throws Exception {
        connect(false);
        send(CONNECT_START);
        connection.expectNoMessage(QUIET);

        assertEquals(CONNECT_START, readMore());
        send(CONNECT_START);
        connection.expectNoMessage(QUIET);
        assertEquals(CONNECT_START, readMore());
    }

    @Test
    void largeReadsReachTheConnectionWholeAndInOrder() throws Exception {
        connect(false);
        var sent = new byte[300_000];
        new Random(7).nextBytes(sent);
        send(ByteString.fromArrayUnsafe(sent));
        var received = ByteString.emptyByteString();
        for (int chunks = 0; received.size() < sent.length && chunks < 1_000; chunks++) received = received.concat(readMore());
        assertArrayEquals(sent, received.toArray(), "each read's buffers joined in order, none lost or repeated");
    }

    @Test
    void aReadBeforeTheConnectionAsksIsHeldAloneAndTheRestStaysInTheSocket() throws Exception {
        connect(false);
        send(CONNECT_START);
        assertEquals(CONNECT_START, readMore());  // the socket is polled from now on

        var sent = new byte[1024 * 1024];
        new Random(11).nextBytes(sent);
        var writer = new Thread(() -> {
            try {
                send(ByteString.fromArrayUnsafe(sent));
            } catch (IOException closed) {
                // the test ended first
            }
        });
        writer.start();
        connection.expectNoMessage(QUIET);  // nobody asked: what came is held, and no more is read

        var first = readMore();
        assertTrue(first.size() <= 64 * 1024, "one read's buffer, not what the client sent: " + first.size());
        var received = first;
        for (int chunks = 0; received.size() < sent.length && chunks < 10_000; chunks++) received = received.concat(readMore());
        writer.join(5_000);
        assertArrayEquals(sent, received.toArray(), "the held read first, then the rest, in order");
    }

    @Test
    void whatTheClientSentBeforeItClosedReachesTheConnectionBeforeTheClose() throws Exception {
        connect(false);
        send(CONNECT_START);
        assertEquals(CONNECT_START, readMore());  // the socket is polled from now on
        var last = ByteString.fromString("its last PUBLISHes and its DISCONNECT");
        send(last);  // nobody asked: held
        client.close();
        assertEquals(last, assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes(),
                "not dropped with the socket");
        assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
    }

    @Test
    void writesOfOneTurnCountAsBufferedUntilTheirFlushAndReachTheClientInOrder() throws Exception {
        connect(false);
        long buffered = onLoop(() -> {
            transport.write(ByteString.fromString("hello, "));
            transport.write(ByteString.fromString("wor").concat(ByteString.fromString("ld!")));  // a PUBLISH's head and payload
            return transport.bufferedBytes();
        });
        assertEquals(13, buffered, "their bytes, not Netty's overhead per write");
        assertEquals("hello, world!", new String(readExactly(client.getInputStream(), 13), US_ASCII));
        assertEquals(0L, onLoop(transport::bufferedBytes));
    }

    @Test
    void theConnectionIsToldOnceWhenTheSocketTookWhatWasWritten() throws Exception {
        connect(false);
        onLoop(() -> {
            transport.tellWhenTaken();
            return null;
        });
        assertEquals(Connection.WritesTaken.INSTANCE, connection.receiveMessage(), "nothing waits: told at once");

        // More than the client's socket and ours hold while it reads nothing: the rest waits in Netty's buffer.
        var big = ByteString.fromArray(new byte[8 * 1024 * 1024]);
        long waiting = onLoop(() -> {
            transport.write(big);
            transport.tellWhenTaken();
            transport.tellWhenTaken();
            return transport.bufferedBytes();
        });
        assertTrue(waiting > 0, "the socket has not taken it all");
        connection.expectNoMessage(QUIET);
        assertEquals(big.size(), readExactly(client.getInputStream(), big.size()).length);
        assertEquals(Connection.WritesTaken.INSTANCE, connection.receiveMessage(), "told once it was taken");
        connection.expectNoMessage(QUIET);
    }

    @Test
    void aCloseSendsWhatWasWrittenThenEndsTheStreamAndTheClientsCloseEndsTheConnection() throws Exception {
        connect(false);
        onLoop(() -> {
            transport.write(ByteString.fromString("last"));
            transport.close();
            transport.write(ByteString.fromString("never"));
            return null;
        });
        var in = client.getInputStream();
        assertEquals("last", new String(readExactly(in, 4), US_ASCII));
        assertEquals(-1, in.read(), "our side of the stream ended");
        send(CONNECT_START);  // read and dropped while the socket lingers
        connection.expectNoMessage(QUIET);
        client.close();
        assertEquals("closed", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        assertEquals(0, listener.connections().open(), "its place is given back");
    }

    @Test
    void aSocketClosedByTheClientEndsItsConnectionOnceAndGivesItsPlaceBack() throws Exception {
        connect(false);
        onLoop(() -> {
            transport.readMore();
            return null;
        });
        client.close();
        assertEquals("closed by the client", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        onLoop(() -> {
            transport.close();
            transport.abort();
            return null;
        });
        connection.expectNoMessage(QUIET);
        assertEquals(0, listener.connections().open());
    }

    @Test
    void anAbortResetsTheSocket() throws Exception {
        connect(false);
        onLoop(() -> {
            transport.abort();
            return null;
        });
        assertEquals("aborted", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        assertThrows(SocketException.class, () -> {
            for (int i = 0; i < 100 && client.getInputStream().read() != -1; i++) {
                client.getOutputStream().write(1);
            }
            client.getOutputStream().write(new byte[65536]);
            client.getOutputStream().write(new byte[65536]);
        }, "the client's socket was reset");
        assertEquals(0, listener.connections().open());
    }

    @Test
    void theProxyHeaderIsReadFirstEvenSplitAndTheBytesAfterItReachTheConnectionUnchanged() throws Exception {
        connect(true);
        var header = ByteString.fromString("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n", US_ASCII);
        assertEquals(shard.address().getAddress(), onLoop(transport::remoteAddress).getAddress(), "the socket's peer until the header is read");
        onLoop(() -> {
            transport.readMore();
            return null;
        });
        send(header.take(10));
        connection.expectNoMessage(QUIET);
        send(header.drop(10));
        connection.expectNoMessage(QUIET);
        send(CONNECT_START);
        assertEquals(CONNECT_START, assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        assertEquals(new InetSocketAddress("192.0.2.7", 51234), onLoop(transport::remoteAddress));
    }

    @Test
    void aConnectionWithoutTheProxyHeaderIsCutAndGivesItsPlaceBack() throws Exception {
        connect(true);
        onLoop(() -> {
            transport.readMore();
            return null;
        });
        send(CONNECT_START);  // straight to MQTT, past the balancer
        var closed = assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
        assertTrue(closed.cause().startsWith("PROXY protocol: "), closed.cause());
        assertEquals(0, listener.connections().open());
    }

    @Test
    void withoutTheSettingAHeaderIsNotLookedForAndReachesTheConnectionAsItCame() throws Exception {
        connect(false);
        var header = ByteString.fromString("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n", US_ASCII);
        send(header);
        assertArrayEquals(header.toArray(), readMore().toArray());
    }

    @Test
    void theSocketsOfAStoppedShardAreClosedAndGiveTheirPlacesBack() throws Exception {
        connect(false);
        var closer = testKit.spawn(ShardChannels.closedWithTheShard(shard.channels));
        // The shard's children stop on its thread; here the test kit's, with the loop idle meanwhile.
        onLoop(() -> null);
        testKit.stop(closer);
        assertEquals(-1, client.getInputStream().read(), "the socket is closed");
        assertEquals(0, listener.connections().open());
        connection.expectNoMessage(QUIET);
    }
}
