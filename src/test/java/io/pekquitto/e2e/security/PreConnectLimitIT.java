package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Will;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Before it is authenticated, a client cannot make the broker buffer more than {@code max-connect-size}
 * (16 KiB by default): a larger CONNECT is refused as soon as its Remaining Length is read, without
 * waiting for its body. A CONNECT within the limit, a will included, is served as before.
 */
class PreConnectLimitIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @Test
    @DisplayName("a CONNECT announcing 256 MiB is refused at once, before its body")
    void aHugeConnectIsRefusedBeforeItsBody() throws Exception {
        try (var client = broker.raw()) {
            client.send(new byte[] {0x10, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F});  // CONNECT, 256 MiB - 1 announced
            var waited = client.expectClosed(Duration.ofSeconds(5));
            assertTrue(waited.compareTo(Duration.ofSeconds(2)) < 0, "closed after " + waited + ", not after a timeout");
        }
        broker.assertServesQos1(V5);
    }

    @Test
    @DisplayName("a CONNECT whose will makes it larger than max-connect-size is refused; one within it is served")
    void theLimitCountsTheWholeConnect() throws Exception {
        var large = new Will(Names.topic("will"), new byte[20 * 1024], 0, false);
        try (var client = broker.raw()) {
            client.send(Connect.of(V5, Names.clientId("large")).withWill(large).bytes());
            client.expectClosed(Duration.ofSeconds(5));
        }
        var small = new Will(Names.topic("will"), new byte[8 * 1024], 0, false);
        try (var client = broker.raw()) {
            client.send(Connect.of(V5, Names.clientId("small")).withWill(small).bytes());
            assertEquals(0, client.expect(CONNACK).connAckReason());
        }
    }
}
