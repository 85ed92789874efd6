package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.settings.BridgeSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a bridge tells its remote it is: the bridge bit over 3.1.1, No Local and Retain As Published over 5. */
class RemotePacketsTest {

    private static BridgeSettings bridge(String more) {
        return BrokerSettings.parse("bridges = [{ name = b, addresses = [\"h\"], client-id = remote, username = u, password = p, "
                + "topics = [{ pattern = \"in/#\", direction = in, qos = 2, remote-prefix = \"r/\" }], " + more + " }]").bridges().get(0);
    }

    @Test
    void a311BridgeSetsTheTopBitOfTheProtocolLevelUnlessTryPrivateIsOff() {
        var connect = RemotePackets.connect(bridge(""), 20);
        assertTrue(connect.bridge());
        assertEquals("remote", connect.clientId());
        assertFalse(connect.cleanStart());
        assertEquals(Optional.of("u"), connect.username());
        // Fixed header, remaining length, "MQTT" (2 + 4 bytes), then the level: 0x84.
        assertEquals((byte) 0x84, PacketEncoder.encode(connect, ProtocolVersion.MQTT_3_1_1).get(8));
        assertFalse(RemotePackets.connect(bridge("try-private = false"), 20).bridge());
    }

    @Test
    void anMqtt5BridgeAsksForAKeptSessionAndSubscribesWithNoLocalAndRetainAsPublished() {
        var bridge = bridge("protocol-version = \"5\"");
        var connect = RemotePackets.connect(bridge, 20);
        assertFalse(connect.bridge(), "MQTT 5 has No Local instead");
        assertEquals(RemotePackets.SESSION_EXPIRY, connect.properties().sessionExpiryInterval());
        assertEquals(20, connect.properties().receiveMaximum());
        var subscription = RemotePackets.subscribe(bridge, new TopicMapping(bridge.topics()).incoming(), 1).subscriptions().get(0);
        assertEquals("r/in/#", subscription.topicFilter());
        assertEquals(QoS.EXACTLY_ONCE, subscription.options().maximumQos());
        assertTrue(subscription.options().noLocal());
        assertTrue(subscription.options().retainAsPublished());
        var plain = RemotePackets.subscribe(bridge(""), bridge.topics(), 1).subscriptions().get(0);
        assertFalse(plain.options().noLocal(), "3.1.1 carries no options: the bridge bit says it");
    }
}
