package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
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
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection against its shard's memory budget, under {@link ManualClock}: a client that holds more
 * than its fair share while the shard is past its high-water mark is disconnected with 0x97 once the
 * grace is over, and not before; a CONNECT the shard has no session for gets CONNACK 0x97, or 3 in 3.1.1.
 */
class ConnectionMemoryTest {
    /** A shard of 1,000 bytes (one shard), 500 per client, a grace of 10 s; parking off. */
    private static final BrokerSettings SETTINGS = BrokerSettings.parse(
            "memory { budget = 1000, over-share-grace = 10s }\nmax-queued-bytes = 500\nparking.enabled = false");

    private ActorTestKit testKit;
    private final ManualClock clock = new ManualClock();
    private final ShardEnvironment environment = TestConnections.environment(SETTINGS, clock);
    private TestProbe<ShardRequest> shard;
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;

    @BeforeEach
    void start() {
        testKit = clock.testKit();
        shard = testKit.createTestProbe();
        connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
    }

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    private void send(ProtocolVersion version, Packet packet) {
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(packet, version))));
    }

    private void connectAs(ProtocolVersion version) {
        send(version, new Connect(version, "m", true, 0, Optional.empty(), Optional.empty(), Optional.empty(), Properties.NONE));
        shard.expectMessageClass(ShardRequest.Attach.class);
    }

    /** Connected, with a session counted against the shard's budget. */
    private Session connected() {
        connectAs(ProtocolVersion.MQTT_5);
        var session = new Session("m", 100, 0, false, environment.memory());
        connection.tell(new Connection.Attached(false, session));
        awaitPackets(1);
        return session;
    }

    private List<Packet> awaitPackets(int count) {
        return testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(2), () -> {
            var packets = transport.packets(ProtocolVersion.MQTT_5);
            assertEquals(count, packets.size(), packets::toString);
            return packets;
        });
    }

    private static Message message(int bytes) {
        return Message.received("t", Binary.of(new byte[bytes]), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0);
    }

    /**
     * Delivers a message of {@code bytes} and waits until it is written and the connection's memory check is
     * due: the connection sets that deadline after the write, which the test may see first.
     */
    private void delivered(int bytes) throws InterruptedException {
        connection.tell(new Connection.Deliver(List.of(message(bytes))));
        assertInstanceOf(Publish.class, awaitPackets(2).get(1));
        clock.awaitDeadlineWithin(connection, SlowClient.MEMORY_CHECK);
    }

    /** The client holds 796 bytes in flight (one message, larger than its share); another client 250: past 900 of 1,000. */
    private void overItsFairShare() throws InterruptedException {
        delivered(700);
        environment.memory().held(0, 250);
    }

    /** Moves time on a second at a time, letting each memory check run at its own second. */
    private void seconds(int count) {
        for (int i = 0; i < count; i++) {
            clock.advance(Duration.ofSeconds(1));
            shard.expectNoMessage(Duration.ofMillis(20));
        }
    }

    @Test
    void aClientOverItsFairShareForLongerThanTheGraceIsDisconnectedWithQuotaExceeded() throws InterruptedException {
        var session = connected();
        overItsFairShare();
        seconds(10);
        assertFalse(transport.closed.get(), "over since the first check, 9 s ago");
        clock.advance(Duration.ofSeconds(1));
        var disconnect = assertInstanceOf(Disconnect.class, awaitPackets(3).get(2));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, disconnect.reason());
        assertTrue(disconnect.properties().reasonString().orElseThrow().contains("fair share"));
        var release = shard.expectMessageClass(ShardRequest.Release.class);
        assertEquals(session, release.session());
        var figures = environment.memory().figures();
        assertEquals(1, figures.disconnected());
        assertEquals(1, figures.dropped(), "its session ends with the connection: the message in flight is dropped, counted");
        assertEquals(0, release.sessionExpiryInterval(), "the shard ends it, and what it held with it");
    }

    @Test
    void aClientWithinItsFairShareStaysConnected() throws InterruptedException {
        connected();
        delivered(200);
        environment.memory().held(0, 650);  // 946 of 1,000, but the client holds 296, under a third
        seconds(15);
        assertFalse(transport.closed.get());
        assertEquals(0, environment.memory().figures().disconnected());
    }

    @Test
    void aNewPersistentSessionTheShardHasNoRoomForGetsQuotaExceeded() {
        connectAs(ProtocolVersion.MQTT_5);
        connection.tell(new Connection.Refused(ReasonCode.QUOTA_EXCEEDED, "no room"));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, transport.refusal(testKit, ProtocolVersion.MQTT_5).reason());
    }

    @Test
    void a311ClientIsToldServerUnavailable() {
        connectAs(ProtocolVersion.MQTT_3_1_1);
        connection.tell(new Connection.Refused(ReasonCode.QUOTA_EXCEEDED, "no room"));
        ConnAck connAck = transport.refusal(testKit, ProtocolVersion.MQTT_3_1_1);
        assertEquals(3, connAck.reason().connAckReturnCodeV3(), "3: Server unavailable");
    }
}
