package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.WAIT;
import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.pekquittoBridgedTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two pekquitto brokers bridged both ways on the same topics: the remote one knows the bridge for one
 * (the protocol level's bridge bit over 3.1.1, No Local over 5), so each message arrives once on each
 * side and none goes round.
 */
class PekquittoToPekquittoIT {

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(strings = {"3.1.1", "5"})
    @Timeout(60)
    @DisplayName("bridged both ways: each message once on each side, no loop")
    void noLoop(String version) throws Exception {
        var clientId = Names.clientId("bridge");
        try (var far = Pekquitto.start(BrokerSettings.parse("shards = 2\nlisteners = [{host = \"127.0.0.1\", port = 0}]"));
             var near = pekquittoBridgedTo(far.port(), version, clientId, "[ { pattern = \"loop/#\", direction = both, qos = 1 } ]", "");
             var nearClient = PahoClient.connect(RawClient.V311, near.port(), Names.clientId("near"));
             var farClient = PahoClient.connect(RawClient.V5, far.port(), Names.clientId("far"))) {
            nearClient.subscribe("loop/#", 1);
            farClient.subscribe("loop/#", 1);
            BridgeToMosquittoIT.awaitUp(nearClient, clientId);
            awaitBothWays(nearClient, farClient);

            nearClient.publish("loop/near", "from near", 1, false);
            farClient.publish("loop/far", "from far", 1, false);
            for (var side : List.of(nearClient, farClient)) {
                assertEquals(List.of("from far", "from near"), side.inbox().next(2, WAIT).stream().map(Inbox.Message::text).sorted().toList());
            }
            nearClient.inbox().expectNothing(Duration.ofSeconds(1));
            farClient.inbox().expectNothing(Duration.ofMillis(200));
        }
    }

    /**
     * Probes from the far side until one comes through (the bridge subscribes there after CONNACK); then a last one
     * at QoS 1, after which no probe comes: both sides drop what they got up to it (the far one gets its own).
     */
    private static void awaitBothWays(PahoClient near, PahoClient far) throws Exception {
        for (long deadline = System.nanoTime() + WAIT.toNanos(); System.nanoTime() < deadline; ) {
            far.publish("loop/probe", "probe", 0, false);
            var message = near.inbox().poll(Duration.ofMillis(200));
            if (message != null && message.text().equals("probe")) {
                far.publish("loop/probe", "last probe", 1, false);
                near.inbox().dropThrough("last probe", WAIT);
                far.inbox().dropThrough("last probe", WAIT);
                return;
            }
        }
        throw new AssertionError("the bridge's subscription at the far broker did not take within " + WAIT);
    }
}
