package io.pekquitto.shards.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.listener.ConnectionCount;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.listener.ProxyHeaderDecoder;
import io.pekquitto.shards.settings.ListenerSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The socket side of a connection on Pekko IO: one write in flight, the rest coalesced; reads pulled; close after the last write. */
class SocketTransportTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(50);
    private static final InetSocketAddress SOCKET_PEER = new InetSocketAddress("127.0.0.1", 40000);
    private static final ByteString V1_HEADER = ByteString.fromString("PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n");
    private static final ByteString CONNECT_START = ByteString.fromArray(new byte[] {0x10, 0x0D, 0x00, 0x04, 'M', 'Q', 'T', 'T'});

    private TestProbe<Object> socket;
    private TestProbe<Object> sockets;
    private TestProbe<Connection.Command> connection;
    private SocketTransport transport;

    @BeforeEach
    void create() {
        socket = testKit.createTestProbe();
        connection = testKit.createTestProbe();
        sockets = testKit.createTestProbe();
        transport = new SocketTransport(Adapter.toClassic(socket.getRef()), Adapter.toClassic(sockets.getRef()),
                TestConnections.servedBy(connection.getRef()), null, false,
                TestConnections.ANY_LISTENER.connections(), SOCKET_PEER, null);
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private ByteString written() {
        return assertInstanceOf(Tcp.Write.class, socket.receiveMessage()).data();
    }

    @Test
    void oneWriteIsInFlightAndWhatComesMeanwhileGoesOutAsOne() {
        transport.write(ByteString.fromString("a"));
        assertEquals(ByteString.fromString("a"), written());
        transport.write(ByteString.fromString("b"));
        transport.write(ByteString.fromString("c"));
        socket.expectNoMessage(QUIET);
        assertEquals(3, transport.bufferedBytes(), "one in flight, two waiting");
        transport.written();
        assertEquals(ByteString.fromString("bc"), written());
        transport.written();
        assertEquals(0, transport.bufferedBytes());
        socket.expectNoMessage(QUIET);
    }

    @Test
    void readsArePulledOneChunkAtATime() {
        transport.readMore();
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage());
        transport.received(ByteString.fromString("x"));
        assertEquals(ByteString.fromString("x"), assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
    }

    @Test
    void closeWaitsForTheLastWrite() {
        transport.write(ByteString.fromString("disconnect"));
        written();
        transport.write(ByteString.fromString("more"));
        transport.close();
        transport.write(ByteString.fromString("after close"));  // dropped: nothing is written after close
        socket.expectNoMessage(QUIET);
        // A client that never reads would hold the close, and the bytes, for ever: it is cut after a while.
        assertInstanceOf(ShardSockets.Closing.class, sockets.receiveMessage());
        transport.written();
        assertEquals(ByteString.fromString("more"), written());
        transport.written();
        assertLingers();
    }

    @Test
    void abortDropsWhatWaitsAndResetsTheSocket() {
        transport.write(ByteString.fromString("in flight"));
        written();
        transport.write(ByteString.fromString("waiting"));
        transport.abort();
        assertEquals(TcpMessage.abort(), socket.receiveMessage());
        transport.write(ByteString.fromString("after abort"));
        transport.written();
        socket.expectNoMessage(QUIET);
        assertEquals(0, transport.bufferedBytes(), "nothing is kept for a socket that is cut");
    }

    /** Closing: our output ends, reading goes on, and the shard's sockets actor is told to cut it in a while. */
    private void assertLingers() {
        assertEquals(TcpMessage.confirmedClose(), socket.receiveMessage());
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage());
        assertInstanceOf(ShardSockets.Linger.class, sockets.receiveMessage());
    }

    @Test
    void closingAnIdleTransportShutsItsOutputDownAtOnce() {
        transport.close();
        assertLingers();
        transport.close();
        socket.expectNoMessage(QUIET);
    }

    @Test
    void whatTheClientSendsWhileTheSocketLingersIsReadAndDropped() {
        transport.close();
        assertLingers();
        transport.received(ByteString.fromString("PUBLISH in flight"));
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage(), "read on");
        connection.expectNoMessage(QUIET);
    }

    @Test
    void theConnectionHearsOfAClosedSocketOnceAndNothingIsWrittenAfter() {
        transport.closed("closed by the client");
        transport.closed("again");
        assertEquals("closed by the client", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        connection.expectNoMessage(QUIET);
        transport.write(ByteString.fromString("late"));
        transport.readMore();
        socket.expectNoMessage(QUIET);
    }

    @Test
    void oneReadIsAskedForUntilItsChunkComes() {
        transport.readMore();
        transport.readMore();
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage());
        socket.expectNoMessage(QUIET);
        transport.received(ByteString.fromString("CONNECT"));
        connection.receiveMessage();
        transport.readMore();
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage(), "the next chunk");
    }

    // ---- the PROXY protocol header

    /** A transport on a listener with {@code proxy-protocol}, its place in the listener's count taken. */
    private SocketTransport behindAProxy(ConnectionCount count) {
        assertTrue(count.tryOpen());
        return new SocketTransport(Adapter.toClassic(socket.getRef()), Adapter.toClassic(sockets.getRef()),
                TestConnections.servedBy(connection.getRef()), null, false, count, SOCKET_PEER, new ProxyHeaderDecoder());
    }

    private static ConnectionCount count() {
        return Listener.of(0, new ListenerSettings("127.0.0.1", 0)).connections();
    }

    @Test
    void theHeaderIsReadFirstAndTheBytesAfterItReachTheConnectionUnchanged() {
        var proxied = behindAProxy(count());
        proxied.received(V1_HEADER.concat(CONNECT_START));
        assertEquals(CONNECT_START, assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        assertEquals(new InetSocketAddress("192.0.2.7", 51234), proxied.remoteAddress(), "the header's client");
    }

    @Test
    void aHeaderSplitAcrossChunksIsReadWholeAndMoreIsAskedForMeanwhile() {
        var proxied = behindAProxy(count());
        assertEquals(SOCKET_PEER, proxied.remoteAddress(), "the socket's peer until the header is read");
        proxied.received(V1_HEADER.take(10));
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage(), "the connection's read is still due");
        proxied.received(V1_HEADER.drop(10));
        assertEquals(TcpMessage.resumeReading(), socket.receiveMessage(), "the header alone: nothing for the connection yet");
        connection.expectNoMessage(QUIET);
        proxied.received(CONNECT_START);
        assertEquals(CONNECT_START, assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        assertEquals(new InetSocketAddress("192.0.2.7", 51234), proxied.remoteAddress());
    }

    @Test
    void aConnectionWithoutAHeaderIsCutAndGivesItsPlaceBack() {
        var count = count();
        var proxied = behindAProxy(count);
        proxied.received(CONNECT_START);  // straight to MQTT, past the balancer
        assertEquals(TcpMessage.abort(), socket.receiveMessage());
        var closed = assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
        assertTrue(closed.cause().startsWith("PROXY protocol: "), closed.cause());
        assertEquals(0, count.open());
    }

    @Test
    void withoutTheSettingAHeaderIsNotLookedForAndReachesTheConnectionAsItCame() {
        // The connection's reader then refuses it as a bad first packet: 'P' is no CONNECT.
        transport.received(V1_HEADER);
        assertEquals(V1_HEADER, assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        assertEquals(SOCKET_PEER, transport.remoteAddress());
    }
}
