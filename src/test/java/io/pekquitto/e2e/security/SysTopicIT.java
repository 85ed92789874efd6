package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static io.pekquitto.e2e.RawClient.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient.Packet;
import io.pekquitto.e2e.RawClient.Will;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code $SYS} is the broker's (4.7.2): subscribers of {@code $SYS/#} must be able to trust that what
 * they read there came from the broker. A client's PUBLISH there is neither delivered nor retained, and
 * a will there is refused at CONNECT, with the reason codes MQTT 5 has for it.
 */
class SysTopicIT {
    private static final Duration QUIET = Duration.ofMillis(300);

    // The broker's own $SYS topics off: a subscriber of $SYS/# hears only what a client might have forged.
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("sys-interval = 0s");

    /** The reason code of an MQTT 5 PUBACK or PUBREC: 0x00 when it is left out (3.4.2.1). */
    private static int ackReason(Packet ack) {
        return ack.body().length > 2 ? ack.body()[2] & 0xFF : 0;
    }

    @Test
    @DisplayName("5.0: a PUBLISH to $SYS gets 0x87 Not authorized at QoS 1 and 2, and no subscriber of $SYS/# receives it")
    void aPublishToSysIsRefusedInMqtt5() throws Exception {
        try (var watcher = broker.raw(Connect.of(V5, Names.clientId("watcher")));
             var forger = broker.raw(Connect.of(V5, Names.clientId("forger")))) {
            watcher.send(RawClient.subscribe(V5, 1, new Filter("$SYS/#", 2)));
            watcher.expect(SUBACK);
            forger.send(RawClient.publish(V5, "$SYS/broker/clients/connected", 0, 0, "999"));
            forger.send(RawClient.publish(V5, "$SYS/broker/clients/connected", 1, 1, "999"));
            assertEquals(hex(0x87), hex(ackReason(forger.expect(PUBACK))));
            forger.send(RawClient.publish(V5, "$SYS/broker/version", 2, 2, "forged"));
            assertEquals(hex(0x87), hex(ackReason(forger.expect(PUBREC))));
            watcher.expectSilence(QUIET);
        }
    }

    @Test
    @DisplayName("3.1.1: a PUBLISH to $SYS is acknowledged as its QoS requires and dropped")
    void aPublishToSysIsDroppedInMqtt311() throws Exception {
        try (var watcher = broker.raw(Connect.of(V311, Names.clientId("watcher")));
             var forger = broker.raw(Connect.of(V311, Names.clientId("forger")))) {
            watcher.send(RawClient.subscribe(V311, 1, new Filter("$SYS/#", 1)));
            watcher.expect(SUBACK);
            forger.send(RawClient.publish(V311, "$SYS/broker/uptime", 1, 1, "forged"));
            assertEquals(1, forger.expect(PUBACK).packetId());
            watcher.expectSilence(QUIET);
        }
    }

    @Test
    @DisplayName("a retained PUBLISH to $SYS is not retained: a later subscriber of $SYS/# gets nothing")
    void aRetainedPublishToSysIsNotRetained() throws Exception {
        try (var forger = broker.raw(Connect.of(V5, Names.clientId("forger")))) {
            forger.send(RawClient.publish(V5, "$SYS/broker/retained", 1, true, 1, new byte[0],
                    "forged".getBytes(StandardCharsets.UTF_8)));
            assertEquals(hex(0x87), hex(ackReason(forger.expect(PUBACK))));
        }
        try (var later = broker.raw(Connect.of(V5, Names.clientId("later")))) {
            later.send(RawClient.subscribe(V5, 1, new Filter("$SYS/#", 1)));
            later.expect(SUBACK);
            later.expectSilence(QUIET);
        }
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {V311, V5})
    @DisplayName("a CONNECT with a will on $SYS is refused: 0x87 Not authorized (5.0), 5 Not authorized (3.1.1)")
    void aWillOnSysIsRefused(int version) throws Exception {
        var will = new Will("$SYS/broker/clients/disconnected", "forged".getBytes(StandardCharsets.UTF_8), 0, false);
        try (var client = broker.raw()) {
            client.send(Connect.of(version, Names.clientId("will")).withWill(will).bytes());
            assertEquals(hex(version == V5 ? 0x87 : 5), hex(client.expect(CONNACK).connAckReason()));
            client.expectClosed(RawClient.TIMEOUT);
        }
        broker.assertServesQos1(version);
    }
}
