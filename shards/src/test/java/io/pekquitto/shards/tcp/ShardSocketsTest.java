package io.pekquitto.shards.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import java.time.Duration;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
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
    private static int count;

    @BeforeEach
    void adopt() {
        socket = testKit.createTestProbe();
        socketRef = Adapter.toClassic(socket.getRef());
        connection = testKit.createTestProbe();
        // A typed test kit's system takes classic actors only as system actors.
        sockets = ((ExtendedActorSystem) Adapter.toClassic(testKit.system())).systemActorOf(ShardSockets.props(), "sockets-" + ++count);
        sockets.tell(new ShardSockets.Adopt(socketRef, new java.net.InetSocketAddress("127.0.0.1", 50000), TestConnections.servedBy(connection.getRef()), java.util.Optional.empty()), ActorRef.noSender());
        assertEquals(TcpMessage.register(sockets, false, false), socket.receiveMessage(), "the shard handles the socket");
        assertInstanceOf(Connection.TransportReady.class, connection.receiveMessage());
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
    void aSocketTheClientClosedWhileLingeringIsNotCut() {
        sockets.tell(new ShardSockets.Linger(socketRef), ActorRef.noSender());
        sockets.tell(Tcp.ConfirmedClosed$.MODULE$, socketRef);
        connection.receiveMessage();  // TransportClosed
        manualTime.timePasses(ShardSockets.LINGER);
        socket.expectNoMessage(Duration.ofMillis(50));
    }
}
