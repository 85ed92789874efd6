package io.pekquitto.e2e.limits;

import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.AwaitParked;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.BrokerExtension.Overrides;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A listener's {@code max-connections}: the connection over it is closed as soon as it is accepted,
 * before it can send anything, and counted in {@code $SYS/broker/clients/refused} and the metrics; a
 * connection that ends, whoever ends it and parked or not, makes room for a new one.
 */
@Timeout(60)
class MaxConnectionsIT {
    private static final String TWO_PLACES = "listeners = [{host = \"127.0.0.1\", port = 0, max-connections = 2}]\n";

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    /** The listener is full: the next connection is closed unanswered, even with a CONNECT sent at once. */
    private void assertRefused() throws IOException {
        try (var refused = broker.raw()) {
            try {
                refused.send(Connect.of(V5, Names.clientId("over")).bytes());
            } catch (IOException closedAlready) {
                // the broker may have closed it before the CONNECT went out
            }
            refused.expectClosed(RawClient.TIMEOUT);
        }
    }

    /** A connection once the broker has seen a place freed (it hears of a close asynchronously): bounded retries. */
    private RawClient connectOnceFree(String clientId) {
        return Eventually.await(Duration.ofSeconds(10), () -> "a place freed", () -> {
            var client = broker.raw();
            client.send(Connect.of(V5, clientId).bytes());
            var connAck = client.readOrClosed(RawClient.TIMEOUT);
            if (connAck.isPresent()) {
                assertEquals(0, connAck.get().connAckReason(), connAck.get()::toString);
                return client;
            }
            client.close();
            return null;
        }, Objects::nonNull);
    }

    private static void assertServed(RawClient client) throws IOException {
        var topic = Names.topic("served");
        client.send(RawClient.subscribe(V5, 1, new Filter(topic, 0)));
        client.expect(SUBACK);
        client.send(RawClient.publish(V5, topic, 0, 0, "still here"));
        assertEquals("still here", client.expect(PUBLISH).publish(V5).payloadText());
    }

    @Test
    @Overrides(TWO_PLACES + "sys-interval = 1s\nmetrics { enabled = true, port = 0 }")
    @DisplayName("limit + 1: the last is refused and counted in $SYS and the metrics; once one closes a new one is served")
    void theConnectionOverTheLimitIsRefusedAndCounted() throws Exception {
        var sysTopic = "$SYS/broker/clients/refused";
        try (var watcher = broker.raw(Connect.of(V5, Names.clientId("watcher")));
             var second = broker.raw(Connect.of(V5, Names.clientId("second")))) {
            assertRefused();
            watcher.send(RawClient.subscribe(V5, 1, new Filter(sysTopic, 0)));
            watcher.expect(SUBACK);
            awaitSysValue(watcher, sysTopic, "1");
            assertEquals(1.0, metric("pekquitto_connections_refused_total"));

            second.close();
            try (var third = connectOnceFree(Names.clientId("third"))) {
                assertServed(third);
            }
        }
    }

    @Test
    @Overrides(TWO_PLACES)
    @DisplayName("a connection the broker closes (a malformed packet) gives its place back")
    void aConnectionClosedByTheBrokerGivesItsPlaceBack() throws Exception {
        try (var first = broker.raw(Connect.of(V5, Names.clientId("first")));
             var malformed = broker.raw(Connect.of(V5, Names.clientId("malformed")))) {
            assertRefused();
            malformed.send(new byte[] {(byte) 0x36, 2, 0, 1});  // PUBLISH with QoS 3: malformed [MQTT-3.3.1-4]
            malformed.expectDisconnect(0x81, RawClient.TIMEOUT);
            try (var next = connectOnceFree(Names.clientId("next"))) {
                assertServed(next);
            }
        }
    }

    @Test
    @Overrides(TWO_PLACES + "parking.idle-grace = 100ms")
    @DisplayName("a parked connection whose client goes away gives its place back")
    void aParkedConnectionThatClosesGivesItsPlaceBack() throws Exception {
        try (var first = broker.raw(Connect.of(V5, Names.clientId("parks-1")));
             var second = broker.raw(Connect.of(V5, Names.clientId("parks-2")))) {
            AwaitParked.atLeast(broker.pekquitto().counts(), 2, Duration.ofSeconds(20));
            assertRefused();
            second.close();
            try (var next = connectOnceFree(Names.clientId("after-park"))) {
                assertServed(next);
            }
        }
    }

    /** The retained $SYS value, then each change, until it reads {@code value}. */
    private static void awaitSysValue(RawClient watcher, String topic, String value) {
        Eventually.await(Duration.ofSeconds(10), topic + " to read " + value, () -> {
            var publish = watcher.expect(PUBLISH, Duration.ofSeconds(5)).publish(V5);
            assertEquals(topic, publish.topic());
            return publish.payloadText();
        }, value::equals);
    }

    private double metric(String name) throws IOException, InterruptedException {
        var address = broker.pekquitto().metricsAddress().orElseThrow();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        var body = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();
        var line = body.lines().filter(l -> l.startsWith(name + " ")).findFirst();
        assertTrue(line.isPresent(), () -> name + " not in\n" + body);
        return Double.parseDouble(line.get().substring(name.length() + 1));
    }
}
