package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Parking under Pekko's {@link ManualTime} and a clock the test moves with it: a quiet connection
 * gives up its actor after the grace period and nothing else does, and a parked connection resumes on
 * its next byte or the next command for it, with its negotiated state intact. The shard is a probe
 * that resumes a connection the way the shard does: a new actor from the parked state.
 */
class ConnectionParkingTest {
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.idle-grace = 30s\ntopic-alias-maximum = 5");

    private ActorTestKit testKit;
    private final ManualClock clock = new ManualClock();
    private final AtomicInteger resumes = new AtomicInteger();
    private TestProbe<ShardRequest> shard;
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;
    /** The shard's environment of the connection under test, as {@link #connect} made it. */
    private ShardEnvironment environment;

    @BeforeEach
    void start() {
        testKit = clock.testKit();
        shard = testKit.createTestProbe();
        connection = new ConnectionRef(this::resume);
        clock.watch(connection);  // it plays the shard's deadline queue
    }

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    /** What the shard does when a connection without an actor needs one: its CONNECT is whole, or it is parked and told something. */
    private void resume(ConnectionRef connection) {
        if (connection.parked() == null) {
            connection.resumed(testKit.spawn(Connection.afterConnect(environment, shard.getRef(), connection)));
            return;
        }
        resumes.incrementAndGet();
        connection.resumed(testKit.spawn(Connection.resume(environment, shard.getRef(), connection, connection.parked())));
    }

    private void send(Packet packet) {
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(packet, ProtocolVersion.MQTT_5))));
    }

    private void connect(BrokerSettings settings, int keepAlive) {
        environment = TestConnections.environment(settings, clock);
        connection.awaitConnect(new PreConnect(environment, shard.getRef(), connection, TestConnections.ANY_LISTENER));
        connection.tell(new Connection.TransportReady(transport));
        send(new Connect(ProtocolVersion.MQTT_5, "p", true, keepAlive, Optional.empty(), Optional.empty(),
                Optional.empty(), Properties.builder().set(PropertyId.TOPIC_ALIAS_MAXIMUM, 5).build()));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("p", 100, false)));
        assertInstanceOf(ConnAck.class, awaitPackets(1).get(0));
    }

    private List<Packet> awaitPackets(int count) {
        return transport.awaitPackets(testKit, ProtocolVersion.MQTT_5, count);
    }

    private void expectParked() {
        assertSame(connection, shard.expectMessageClass(ShardRequest.Parked.class).connection());
        assertNotNull(connection.parked(), "parked");
        assertFalse(transport.closed.get(), "a parked connection keeps its socket");
    }

    /** Nothing within a moment of real time, in which the actor would have handled a timer that fired. */
    private void expectLive() {
        shard.expectNoMessage(Duration.ofMillis(50));
        assertNull(connection.parked(), "live");
    }

    private static Message message(QoS qos) {
        return Message.received("t/1", Binary.of(new byte[] {1}), qos, false, Properties.NONE, 0);
    }

    @Test
    void aLiveConnectionHasOneDeadlineOnTheShardsQueueItsIdleCheckBeforeAFarKeepAlive() {
        long connectedAt = clock.getAsLong();
        connect(SETTINGS, 600);
        assertEquals(connectedAt + GRACE.toNanos(), connection.deadline(), "no timer: the idle check, due before the Keep Alive");
    }

    @Test
    void aQuietConnectionParksAfterTheGracePeriodAndNotBefore() {
        connect(SETTINGS, 600);
        clock.advance(GRACE.minusMillis(1));
        expectLive();
        clock.advance(Duration.ofMillis(1));
        expectParked();
    }

    @Test
    void aPacketFromTheClientStartsTheGracePeriodAgain() {
        connect(SETTINGS, 600);
        clock.advance(GRACE.minusSeconds(1));
        send(PingReq.INSTANCE);
        assertInstanceOf(PingResp.class, awaitPackets(2).get(1));
        clock.advance(Duration.ofSeconds(1));
        expectLive();
        clock.advance(GRACE.minusSeconds(1));
        expectParked();
    }

    @Test
    void aParkedConnectionResumesOnItsNextPacketWithItsTopicAliases() {
        connect(SETTINGS, 600);
        var aliased = Properties.builder().set(PropertyId.TOPIC_ALIAS, 1).build();
        send(new Publish("a/b", Binary.EMPTY, QoS.AT_MOST_ONCE, false, false, 0, aliased));
        assertEquals("a/b", shard.expectMessageClass(ShardRequest.Route.class).message().topic());
        shard.expectMessageClass(ShardRequest.ResumeReading.class);  // after routing, the shard lets it read on
        clock.advance(GRACE);
        expectParked();

        send(new Publish("", Binary.EMPTY, QoS.AT_MOST_ONCE, false, false, 0, aliased));  // the alias alone
        assertEquals("a/b", shard.expectMessageClass(ShardRequest.Route.class).message().topic(), "the alias outlived the park");
        shard.expectMessageClass(ShardRequest.ResumeReading.class);
        send(PingReq.INSTANCE);
        assertInstanceOf(PingResp.class, awaitPackets(2).get(1));
        assertEquals(1, resumes.get());
        assertNull(connection.parked());
    }

    @Test
    void aDeliveryResumesAParkedConnection() {
        connect(SETTINGS, 600);
        clock.advance(GRACE);
        expectParked();
        connection.tell(new Connection.Deliver(List.of(message(QoS.AT_MOST_ONCE))));
        assertEquals("t/1", assertInstanceOf(Publish.class, awaitPackets(2).get(1)).topic());
        assertEquals(1, resumes.get());
    }

    @Test
    void aMessageInFlightKeepsTheConnectionLiveUntilAcknowledged() {
        connect(SETTINGS, 600);
        connection.tell(new Connection.Deliver(List.of(message(QoS.AT_LEAST_ONCE))));
        var publish = assertInstanceOf(Publish.class, awaitPackets(2).get(1));
        clock.advance(GRACE.multipliedBy(3));
        expectLive();
        send(new PubAck(publish.packetId(), ReasonCode.SUCCESS, Properties.NONE));
        send(PingReq.INSTANCE);
        assertInstanceOf(PingResp.class, awaitPackets(3).get(2));  // the PUBACK is handled: the grace starts now
        clock.advance(GRACE);
        expectParked();
    }

    @Test
    void aPartlyReadPacketKeepsTheConnectionLive() {
        connect(SETTINGS, 600);
        connection.tell(new Connection.BytesReceived(ByteString.fromArray(new byte[] {(byte) 0xC0})));  // half a PINGREQ
        clock.advance(GRACE.multipliedBy(3));
        expectLive();
        connection.tell(new Connection.BytesReceived(ByteString.fromArray(new byte[] {0})));
        assertInstanceOf(PingResp.class, awaitPackets(2).get(1));
        clock.advance(GRACE);
        expectParked();
    }

    @Test
    void theKeepAliveOfAParkedConnectionStillEndsIt() {  // [MQTT-3.1.2-24]: the shard's check resumes it
        connect(SETTINGS, 40);
        clock.advance(GRACE);
        expectParked();
        assertEquals(clock.getAsLong() - GRACE.toNanos() + Duration.ofSeconds(60).toNanos(), connection.parked().keepAliveDeadline());
        clock.advance(Duration.ofSeconds(60).minus(GRACE));
        connection.tell(Connection.DeadlineCheck.INSTANCE);
        assertEquals(ReasonCode.KEEP_ALIVE_TIMEOUT, assertInstanceOf(Disconnect.class, awaitPackets(2).get(1)).reason());
        shard.expectMessageClass(ShardRequest.Release.class);
        testKit.createTestProbe().awaitAssert(() -> {
            assertTrue(transport.closed.get());
            return null;
        });
    }

    @Test
    void aConnectionLeavesItsKeepAliveToTheShardAsItParks() {  // one entry on the shard's queue per parked connection
        connect(SETTINGS, 40);
        clock.advance(GRACE);
        expectParked();
        assertEquals(List.of(), environment.deadlines().due(connection.parked().keepAliveDeadline()),
                "the actor queued none as it parked: the shard queues a parked one's Keep Alive (ParkedConnections)");
    }

    @Test
    void aParkedConnectionIsTakenOverLikeALiveOne() {  // [MQTT-3.1.4-3]
        connect(SETTINGS, 600);
        clock.advance(GRACE);
        expectParked();
        connection.tell(Connection.TakenOver.INSTANCE);
        assertEquals(ReasonCode.SESSION_TAKEN_OVER, assertInstanceOf(Disconnect.class, awaitPackets(2).get(1)).reason());
        var release = shard.expectMessageClass(ShardRequest.Release.class);
        assertSame(connection, release.connection());
    }

    @Test
    void aParkedConnectionResumesToHearTheServerShutDown() {
        connect(SETTINGS, 600);
        clock.advance(GRACE);
        expectParked();
        connection.tell(Connection.ServerShuttingDown.INSTANCE);
        assertEquals(ReasonCode.SERVER_SHUTTING_DOWN, assertInstanceOf(Disconnect.class, awaitPackets(2).get(1)).reason());
        assertSame(connection, shard.expectMessageClass(ShardRequest.Release.class).connection());
        assertEquals(1, resumes.get());
    }

    @Test
    void withParkingOffAQuietConnectionStaysLive() {
        connect(BrokerSettings.parse("parking.enabled = false"), 600);
        clock.advance(GRACE.multipliedBy(10));
        expectLive();
    }
}
