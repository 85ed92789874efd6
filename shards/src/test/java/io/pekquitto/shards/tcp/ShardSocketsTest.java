package io.pekquitto.shards.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.ListenerSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Terminated;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A shard's handler of its sockets: each Pekko IO event reaches the connection of the socket it came from. */
class ShardSocketsTest {
    private static final ActorTestKit testKit = ActorTestKit.create(ManualTime.config().withFallback(ConfigFactory.load()));
    private static final ManualTime manualTime = ManualTime.get(testKit.system());

    private TestProbe<Object> socket;
    private ActorRef socketRef;
    private TestProbe<Connection.Command> connection;
    private ActorRef sockets;
    /** The socket's listener, with one place: the socket's, taken as the listener accepted it. */
    private Listener listener;
    private static int count;

    @BeforeEach
    void adopt() {
        socket = testKit.createTestProbe();
        socketRef = Adapter.toClassic(socket.getRef());
        connection = testKit.createTestProbe();
        // A typed test kit's system takes classic actors only as system actors.
        sockets = ((ExtendedActorSystem) Adapter.toClassic(testKit.system())).systemActorOf(ShardSockets.props(), "sockets-" + ++count);
        listener = oneConnectionListener();
        sockets.tell(new ShardSockets.Adopt(socketRef, REMOTE, TestConnections.servedBy(connection.getRef()), Optional.empty(),
                listener), ActorRef.noSender());
        assertEquals(TcpMessage.register(sockets, false, false), socket.receiveMessage(), "the shard handles the socket");
        assertInstanceOf(Connection.TransportReady.class, connection.receiveMessage());
    }

    private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 50000);

    private static Listener oneConnectionListener() {
        var listener = Listener.of(0, new ListenerSettings("127.0.0.1", 0, Optional.empty(), Optional.empty(), false, 1,
                EnumSet.allOf(ProtocolVersion.class)));
        assertTrue(listener.connections().tryOpen());
        return listener;
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    @Test
    void adoptingASocketAsksForNoRead() {
        // The connection asks for each chunk; a read asked for on its behalf would put two in flight,
        // and the handshake, attaching, does not read past its CONNECT.
        socket.expectNoMessage(Duration.ofMillis(50));
    }

    @Test
    void bytesFromTheSocketReachItsConnection() {
        sockets.tell(new Tcp.Received(ByteString.fromString("hello")), socketRef);
        assertEquals(ByteString.fromString("hello"), assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        var stranger = Adapter.toClassic(testKit.<Object>createTestProbe().getRef());
        sockets.tell(new Tcp.Received(ByteString.fromString("not yours")), stranger);
        connection.expectNoMessage(Duration.ofMillis(50));
    }

    @Test
    void aSocketClosedByTheClientEndsItsConnection() {
        sockets.tell(TcpMessage.resumeReading(), ActorRef.noSender());  // ignored: not an event
        sockets.tell(Tcp.PeerClosed$.MODULE$, socketRef);
        assertEquals("closed by the client", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
    }

    @Test
    void aLingeringSocketIsCutWhenTheClientHasNotClosedInTime() {
        sockets.tell(new ShardSockets.Linger(socketRef), ActorRef.noSender());
        manualTime.timePasses(ShardSockets.LINGER.minusMillis(1));
        socket.expectNoMessage(Duration.ofMillis(50));
        manualTime.timePasses(Duration.ofMillis(1));
        assertEquals(TcpMessage.abort(), socket.receiveMessage());
    }

    @Test
    void aCloseThatWaitsForAClientThatNeverReadsIsCut() {
        sockets.tell(new ShardSockets.Closing(socketRef), ActorRef.noSender());
        manualTime.timePasses(ShardSockets.CLOSE_TIMEOUT.minusMillis(1));
        socket.expectNoMessage(Duration.ofMillis(50));
        manualTime.timePasses(Duration.ofMillis(1));
        assertEquals(TcpMessage.abort(), socket.receiveMessage(), "what it did not read would stay in the heap");
    }

    @Test
    void aSocketTheClientClosedWhileLingeringIsNotCut() {
        sockets.tell(new ShardSockets.Linger(socketRef), ActorRef.noSender());
        sockets.tell(Tcp.ConfirmedClosed$.MODULE$, socketRef);
        connection.receiveMessage();  // TransportClosed
        manualTime.timePasses(ShardSockets.LINGER);
        socket.expectNoMessage(Duration.ofMillis(50));
    }

    @Test
    void aClosedSocketGivesItsListenersPlaceBackOnce() {
        assertFalse(listener.connections().tryOpen(), "full while the socket is open");
        sockets.tell(Tcp.PeerClosed$.MODULE$, socketRef);
        connection.receiveMessage();  // TransportClosed
        sockets.tell(Tcp.Aborted$.MODULE$, socketRef);  // a second event of the same socket changes nothing
        sockets.tell(new Terminated(socketRef, false, false), socketRef);
        socket.expectNoMessage(Duration.ofMillis(50));
        assertEquals(0, listener.connections().open());
    }

    @Test
    void theSocketsOfAStoppedShardGiveTheirPlacesBack() {
        // A shard that stops or restarts stops its handler, and Pekko IO closes the handler's sockets.
        var probe = testKit.createTestProbe();
        var typed = Adapter.toTyped(sockets);
        testKit.system().classicSystem().stop(sockets);
        probe.expectTerminated(typed);
        assertEquals(0, listener.connections().open());
    }

    @Test
    void aSocketWhoseTlsCannotStartGivesItsPlaceBack() throws Exception {
        var other = Adapter.toClassic(testKit.createTestProbe().getRef());
        var otherListener = oneConnectionListener();
        var otherConnection = testKit.<Connection.Command>createTestProbe();
        var engine = SSLContext.getDefault().createSSLEngine();
        engine.setUseClientMode(false);
        engine.closeOutbound();  // a closed engine cannot begin its handshake: SSLException
        sockets.tell(new ShardSockets.Adopt(other, REMOTE, TestConnections.servedBy(otherConnection.getRef()),
                Optional.of(new ListenerTls(address -> engine, false)), otherListener), ActorRef.noSender());
        assertInstanceOf(Connection.TransportClosed.class, otherConnection.receiveMessage());
        assertEquals(0, otherListener.connections().open());
    }
}
