package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The default {@code max-packet-size} is 1 MiB, not the protocol's 256 MiB: MQTT 5 clients are told it
 * in CONNACK (Maximum Packet Size, 3.2.2.3.6), and a larger packet is refused with 0x95 before its
 * body is buffered.
 */
class DefaultPacketSizeIT {
    private static final long ONE_MIB = 1 << 20;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @Test
    @DisplayName("5.0: CONNACK carries Maximum Packet Size 1 MiB, and a PUBLISH over it gets DISCONNECT 0x95 (3.2.2.3.6)")
    void theDefaultMaximumPacketSizeIsAdvertisedAndEnforced() throws Exception {
        try (var client = broker.raw()) {
            client.send(Connect.of(V5, Names.clientId("size")).bytes());
            var connAck = client.expect(CONNACK);
            assertEquals(0, connAck.connAckReason());
            assertEquals(ONE_MIB, ((Number) connAck.connAckProperties().get(0x27)).longValue());  // 0x27 Maximum Packet Size
            client.send(new RawClient.Bytes().u8(0x30).varInt((int) ONE_MIB).toByteArray());  // PUBLISH QoS 0, 1 MiB announced
            client.expectDisconnect(0x95, Duration.ofSeconds(5));
        }
        broker.assertServesQos1(V5);
    }
}
