package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A 3.1.1 client whose CONNECT had the bridge bit (level 0x84) subscribes with No Local and Retain As
 * Published, as the shard is asked to apply it, before and after its connection parks; a plain 3.1.1
 * client with neither.
 */
class ConnectionBridgeTest {
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.idle-grace = 30s");
    private static final ProtocolVersion V311 = ProtocolVersion.MQTT_3_1_1;

    private ActorTestKit testKit;
    private final ManualClock clock = new ManualClock();
    private TestProbe<ShardRequest> shard;
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;

    @BeforeEach
    void start() {
        testKit = clock.testKit();
        shard = testKit.createTestProbe();
    }

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    private void send(Packet packet) {
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(packet, V311))));
    }

    private void connect(boolean bridge) {
        connection = TestConnections.accepted(testKit, TestConnections.environment(SETTINGS, clock), shard.getRef(),
                TestConnections.ANY_LISTENER, transport);
        send(new Connect(V311, "b", true, 600, Optional.empty(), Optional.empty(), Optional.empty(), Properties.NONE, bridge));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("b", 0, false)));
        assertInstanceOf(ConnAck.class, transport.awaitPackets(testKit, V311, 1).get(0));
    }

    /** The options the shard is asked to apply for a SUBSCRIBE of {@code filter} at QoS 1. */
    private SubscriptionOptions subscribe(String filter) {
        send(new Subscribe(1, List.of(new Subscription(filter, SubscriptionOptions.of(QoS.AT_LEAST_ONCE))), Properties.NONE));
        return shard.expectMessageClass(ShardRequest.Subscribe.class).requests().get(0).options();
    }

    @Test
    void aBridgeSubscribesWithNoLocalAndRetainAsPublished() {
        connect(true);
        assertEquals(new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, true, 0), subscribe("t/#"));
    }

    @Test
    void aParkedBridgeIsStillOneWhenItResumes() {
        connect(true);
        clock.advance(GRACE);
        shard.expectMessageClass(ShardRequest.Parked.class);
        assertNotNull(connection.parked(), "parked");
        assertEquals(new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, true, 0), subscribe("t/#"));
    }

    @Test
    void aPlainClientSubscribesWithNeither() {
        connect(false);
        assertEquals(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), subscribe("t/#"));
    }
}
