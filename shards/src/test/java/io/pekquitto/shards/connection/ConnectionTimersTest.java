package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection's deadlines under a clock the test moves, which plays the shard's deadline queue: Keep
 * Alive and the CONNECT timeout end the connection when their time has come and not before. The shard
 * is a probe; the socket an in-memory transport.
 */
class ConnectionTimersTest {
    /** Parking off: these are the live connection's timers ({@code ConnectionParkingTest} has the parked one's). */
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.enabled = false");

    private ActorTestKit testKit;
    private final ManualClock clock = new ManualClock();
    private TestProbe<ShardRequest> shard;
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;

    @BeforeEach
    void start() {
        testKit = clock.testKit();
        shard = testKit.createTestProbe();
        connection = TestConnections.accepted(testKit, TestConnections.environment(SETTINGS, clock), shard.getRef(),
                TestConnections.ANY_LISTENER, transport);
    }

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    private void send(Packet packet) {
        var buffer = PacketEncoder.encode(packet, ProtocolVersion.MQTT_5);
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(buffer)));
    }

    /** CONNECT with this Keep Alive, and the shard's answer: a new session. */
    private void connect(int keepAlive) {
        send(new Connect(ProtocolVersion.MQTT_5, "k", true, keepAlive, Optional.empty(), Optional.empty(),
                Optional.empty(), Properties.NONE));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("k", 100, false)));
        awaitPackets(1);
        assertInstanceOf(ConnAck.class, transport.packets(ProtocolVersion.MQTT_5).get(0));
    }

    private List<Packet> awaitPackets(int count) {
        return transport.awaitPackets(testKit, ProtocolVersion.MQTT_5, count);
    }

    private void awaitClosed() {
        transport.awaitClosed(testKit);
    }

    /**
     * Nothing more happens within a moment of real time, in which the actor would have handled a timer
     * that fired (the manual clock stands still meanwhile).
     */
    private void assertStillOpen() {
        shard.expectNoMessage(Duration.ofMillis(50));
        assertFalse(transport.closed.get(), "still open");
    }

    @Test
    void silenceForOneAndAHalfTimesTheKeepAliveEndsTheConnection() {  // [MQTT-3.1.2-22 (5.0)]
        long connectedAt = clock.getAsLong();
        connect(10);
        assertEquals(connectedAt + Duration.ofSeconds(15).toNanos(), connection.deadline(), "one deadline, on the shard's queue");
        clock.advance(Duration.ofMillis(14_999));
        assertStillOpen();
        clock.advance(Duration.ofMillis(1));
        var disconnect = assertInstanceOf(Disconnect.class, awaitPackets(2).get(1));
        assertEquals(ReasonCode.KEEP_ALIVE_TIMEOUT, disconnect.reason());
        awaitClosed();
        shard.expectMessageClass(ShardRequest.Release.class);
    }

    @Test
    void anyPacketStartsTheKeepAliveAgain() {  // 3.1.2.10: any Control Packet, PINGREQ among them
        connect(10);
        clock.advance(Duration.ofSeconds(10));
        send(PingReq.INSTANCE);
        assertInstanceOf(PingResp.class, awaitPackets(2).get(1));
        clock.advance(Duration.ofSeconds(10));
        assertStillOpen();  // 20 s after CONNECT, 10 s after the PINGREQ
        clock.advance(Duration.ofSeconds(5));
        assertInstanceOf(Disconnect.class, awaitPackets(3).get(2));
        awaitClosed();
    }

    @Test
    void keepAliveZeroTurnsTheCheckOff() {  // 3.1.2.10
        connect(0);
        clock.advance(Duration.ofHours(2));
        assertStillOpen();
    }

    @Test
    void noConnectWithinTheConnectTimeoutClosesTheSocket() {
        // No actor and no timer before the CONNECT: its deadline waits on the shard's queue (the clock plays it here).
        var timeout = SETTINGS.connectTimeout();
        assertEquals(timeout.toNanos(), connection.deadline() - clock.getAsLong(), "due a connect timeout after it was accepted");
        clock.advance(timeout.minusMillis(1));
        assertStillOpen();
        clock.advance(Duration.ofMillis(1));
        awaitClosed();
        assertTrue(transport.packets(ProtocolVersion.MQTT_5).isEmpty(), "nothing is sent before a CONNECT");
        assertSame(connection, shard.expectMessageClass(ShardRequest.EndedBeforeConnect.class).connection(), "the shard counts it gone");
    }

    @Test
    void aWholeConnectEndsTheConnectTimeout() {
        send(new Connect(ProtocolVersion.MQTT_5, "k", true, 10, Optional.empty(), Optional.empty(), Optional.empty(),
                Properties.NONE));
        assertEquals(Long.MAX_VALUE, connection.deadline(), "no deadline on the shard's queue once the CONNECT is whole");
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(Connection.DeadlineCheck.INSTANCE);  // a stale entry's check, had the queue kept one
        clock.advance(SETTINGS.connectTimeout());
        assertStillOpen();
    }
}
