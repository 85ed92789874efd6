package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bytes all connections of a shard hold in packets that have not fully arrived are bounded by
 * {@code partial-packet-budget}: a client that sends most of a large PUBLISH and stops holds that much,
 * and the next one that would take the shard past the budget is refused with 0x97 Quota exceeded,
 * while the client within the budget finishes its packet and is served.
 */
class PartialPacketBudgetIT {
    private static final int BODY = 48 * 1024;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("partial-packet-budget = 64KiB");

    /** A QoS 0 PUBLISH of a {@code BODY}-byte Remaining Length to {@code topic}, whole. */
    private static byte[] largePublish(String topic) {
        var payload = new byte[BODY - 2 - topic.length() - 1];  // topic length, topic, property length
        return RawClient.publish(V5, topic, 0, false, 0, new byte[0], payload);
    }

    @Test
    @DisplayName("a second client holding a partial PUBLISH past the shard's budget gets DISCONNECT 0x97; the first is served")
    void partialPacketsPastTheBudgetAreRefused() throws Exception {
        var topic = Names.topic("large");
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")));
             var first = broker.raw(Connect.of(V5, Names.clientId("first")));
             var second = broker.raw(Connect.of(V5, Names.clientId("second")))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(topic, 0)));
            subscriber.expect(SUBACK);
            var publish = largePublish(topic);
            int half = publish.length * 3 / 4;
            first.send(Arrays.copyOfRange(publish, 0, half));
            first.expectSilence(Duration.ofMillis(200));  // within the budget: the broker waits for the rest
            second.send(Arrays.copyOfRange(publish, 0, half));
            second.expectDisconnect(0x97, Duration.ofSeconds(5));
            first.send(Arrays.copyOfRange(publish, half, publish.length));
            var delivered = subscriber.expect(PUBLISH).publish(V5);
            assertEquals(topic, delivered.topic());
        }
        broker.assertServesQos1(V5);
    }
}
