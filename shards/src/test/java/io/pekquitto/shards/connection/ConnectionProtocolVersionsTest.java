package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ListenerSettings;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A connection refuses a CONNECT asking for a version its listener does not accept
 * ({@code protocol-versions}) as it would an unknown version: CONNACK 0x84, or return code 1 in 3.1 and
 * 3.1.1 ([MQTT-3.1.2-2]), then closes; the shard is never asked for a session.
 */
class ConnectionProtocolVersionsTest {
    private static final ActorTestKit testKit = ActorTestKit.create();

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private record Attempt(TestProbe<ShardRequest> shard, FakeTransport transport) {}

    private static Listener accepting(ProtocolVersion first, ProtocolVersion... rest) {
        return Listener.of(1, new ListenerSettings("0.0.0.0", 1884, Optional.empty(), Optional.empty(), false,
                ListenerSettings.UNLIMITED, EnumSet.of(first, rest)));
    }

    private static Attempt connect(Listener listener, ProtocolVersion version) {
        var shard = testKit.<ShardRequest>createTestProbe();
        var transport = new FakeTransport();
        var environment = TestConnections.environment(BrokerSettings.defaults(), System::nanoTime);
        var connection = TestConnections.accepted(testKit, environment, shard.getRef(), listener, transport);
        var connect = new Connect(version, "c", true, 60, Optional.empty(), Optional.empty(), Optional.empty(), Properties.NONE);
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(connect, version))));
        return new Attempt(shard, transport);
    }

    /** The one CONNACK written before the close, read as {@code version} reads it. */
    private static ReasonCode refusal(Attempt attempt, ProtocolVersion version) {
        var connAck = attempt.transport().refusal(testKit, version);
        attempt.shard().expectNoMessage(Duration.ofMillis(20));
        return connAck.reason();
    }

    @Test
    void aV311ConnectOnAListenerOfMqtt5OnlyGetsReturnCode1() {
        // The v3 CONNACK's return code 1 reads back as UNSUPPORTED_PROTOCOL_VERSION.
        assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
                refusal(connect(accepting(ProtocolVersion.MQTT_5), ProtocolVersion.MQTT_3_1_1), ProtocolVersion.MQTT_3_1_1));
        assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
                refusal(connect(accepting(ProtocolVersion.MQTT_5), ProtocolVersion.MQTT_3_1), ProtocolVersion.MQTT_3_1));
    }

    @Test
    void anMqtt5ConnectOnAListenerOf311OnlyGets0x84() {
        var listener = accepting(ProtocolVersion.MQTT_3_1_1, ProtocolVersion.MQTT_3_1);
        assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, refusal(connect(listener, ProtocolVersion.MQTT_5), ProtocolVersion.MQTT_5));
        assertEquals(0x84, ReasonCode.UNSUPPORTED_PROTOCOL_VERSION.value());
    }

    @Test
    void anAcceptedVersionAttachesTheSession() {
        var attempt = connect(accepting(ProtocolVersion.MQTT_3_1_1), ProtocolVersion.MQTT_3_1_1);
        assertEquals("c", attempt.shard().expectMessageClass(ShardRequest.Attach.class).clientId());
    }
}
