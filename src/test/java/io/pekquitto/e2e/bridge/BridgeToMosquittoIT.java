package io.pekquitto.e2e.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoClients;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pekquitto's bridge with a real Mosquitto broker as its remote, over MQTT 3.1.1 and 5: each direction
 * with Mosquitto's prefixes at QoS 0, 1 and 2, and a topic bridged both ways that loops neither way.
 */
class BridgeToMosquittoIT {
    static final Duration WAIT = Duration.ofSeconds(10);

    /** A broker on a free port with one bridge to {@code remotePort}, named "b", client id {@code clientId}. */
    static Pekquitto pekquittoBridgedTo(int remotePort, String version, String clientId, String topics, String bridgeMore) {
        return pekquittoBridgedTo(remotePort, version, clientId, topics, bridgeMore, "");
    }

    /** The same, with {@code brokerMore} settings of the broker's own (a store, say). */
    static Pekquitto pekquittoBridgedTo(int remotePort, String version, String clientId, String topics, String bridgeMore,
                                        String brokerMore) {
        return Pekquitto.start(BrokerSettings.parse("""
                shards = 1
                listeners = [{host = "127.0.0.1", port = 0}]
                bridges = [{
                  name = b, addresses = ["127.0.0.1:%d"], protocol-version = "%s", client-id = "%s"
                  restart-timeout { base = 200ms, cap = 1s }, keep-alive = 5s
                  topics = %s
                  %s
                }]
                %s
                """.formatted(remotePort, version, clientId, topics, bridgeMore, brokerMore)));
    }

    /** The bridge's notification topic, Mosquitto's: its state, "1" or "0", retained. */
    static String stateTopic(String clientId) {
        return "$SYS/broker/connection/" + clientId + "/state";
    }

    /** Waits for the bridge's notification "1" on the local broker. */
    static void awaitUp(PahoClient local, String clientId) throws Exception {
        local.subscribe(stateTopic(clientId), 1);
        awaitState(local, clientId, "1");
        local.unsubscribe(stateTopic(clientId));
    }

    /** Reads what {@code client} receives, and drops it, until the bridge's state is {@code expected}; fails after {@link #WAIT}. */
    static void awaitState(PahoClient client, String clientId, String expected) throws Exception {
        for (long deadline = System.nanoTime() + WAIT.toNanos(); System.nanoTime() < deadline; ) {
            var message = client.inbox().poll(Duration.ofMillis(200));
            if (message != null && message.topic().equals(stateTopic(clientId)) && message.text().equals(expected)) return;
        }
        throw new AssertionError("the bridge's state did not become " + expected + " within " + WAIT);
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(strings = {"3.1.1", "5"})
    @Timeout(60)
    @DisplayName("out, in and both, with prefixes, at QoS 0, 1 and 2; what goes both ways does not come back")
    void carriesEachDirection(String version) throws Exception {
        var clientId = Names.clientId("bridge");
        var topics = """
                [ { pattern = "sensors/#", direction = out, qos = 2, local-prefix = "site/", remote-prefix = "cloud/site1/" },
                  { pattern = "commands/#", direction = in, qos = 2, local-prefix = "site/", remote-prefix = "cloud/site1/" },
                  { pattern = "chat/#", direction = both, qos = 1 } ]""";
        try (var remote = MosquittoRemote.launch();
             var pekquitto = pekquittoBridgedTo(remote.port(), version, clientId, topics, "");
             var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"));
             var far = V3Client.connect(remote.port(), Names.clientId("far"), options -> {})) {
            far.subscribe("cloud/site1/sensors/#", 2);
            far.subscribe("chat/#", 2);
            local.subscribe("site/commands/#", 2);
            local.subscribe("chat/#", 2);
            awaitUp(local, clientId);
            awaitRemoteSubscription(far, local);

            for (int qos = 0; qos <= 2; qos++) local.publish("site/sensors/t" + qos, "out " + qos, qos, false);
            var out = far.inbox().next(3, WAIT);
            assertEquals(List.of("cloud/site1/sensors/t0 out 0 0", "cloud/site1/sensors/t1 out 1 1", "cloud/site1/sensors/t2 out 2 2"),
                    out.stream().map(m -> m.topic() + " " + m.text() + " " + m.qos()).toList());

            for (int qos = 0; qos <= 2; qos++) far.publish("cloud/site1/commands/c" + qos, "in " + qos, qos, false);
            var in = local.inbox().next(3, WAIT);
            assertEquals(List.of("site/commands/c0 in 0 0", "site/commands/c1 in 1 1", "site/commands/c2 in 2 2"),
                    in.stream().map(m -> m.topic() + " " + m.text() + " " + m.qos()).toList());

            local.publish("chat/here", "from here", 1, false);
            far.publish("chat/there", "from there", 1, false);
            // Each side has both messages once: its own from itself, the other's through the bridge.
            var here = local.inbox().next(2, WAIT).stream().map(Inbox.Message::text).sorted().toList();
            var there = far.inbox().next(2, WAIT).stream().map(Inbox.Message::text).sorted().toList();
            assertEquals(List.of("from here", "from there"), here);
            assertEquals(List.of("from here", "from there"), there);
            local.inbox().expectNothing(Duration.ofSeconds(1));
            far.inbox().expectNothing(Duration.ofMillis(200));
        }
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(strings = {"3.1.1", "5"})
    @Timeout(60)
    @DisplayName("a burst from the remote larger than receive-maximum arrives whole and in order")
    void aBurstFromTheRemote(String version) throws Exception {
        var clientId = Names.clientId("bridge");
        var topics = "[ { pattern = \"burst/#\", direction = in, qos = 1 } ]";
        try (var remote = MosquittoRemote.launch();
             var pekquitto = pekquittoBridgedTo(remote.port(), version, clientId, topics, "", "receive-maximum = 3");
             var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"))) {
            local.subscribe("burst/#", 1);
            awaitUp(local, clientId);
            var probe = V3Client.connect(remote.port(), Names.clientId("probe"), options -> {});
            awaitSubscription(probe, local, "burst/probe");
            probe.close();
            var lines = IntStream.range(0, 300).mapToObj(i -> "m" + i).collect(Collectors.joining("\n", "", "\n"));
            // mosquitto_pub -l: one QoS 1 PUBLISH a line, up to 20 in flight: more than pekquitto's 3 at once.
            try (var publisher = ChildProcess.start(MosquittoClients.pub(remote.port(), "mqttv311", Names.clientId("burst"),
                    "-t", "burst/x", "-q", "1", "-l"), lines)) {
                assertEquals(0, publisher.awaitExit(), publisher::output);
            }
            var received = local.inbox().next(300, WAIT).stream().map(Inbox.Message::text).toList();
            assertEquals(IntStream.range(0, 300).mapToObj(i -> "m" + i).toList(), received);
        }
    }

    /**
     * The bridge subscribes at the remote right after CONNACK: a probe published there until it comes
     * through tells the subscription is in place. The probes that come are drained ({@link #awaitSubscription}).
     */
    static void awaitRemoteSubscription(PahoClient far, PahoClient local) throws Exception {
        awaitSubscription(far, local, "cloud/site1/commands/probe");
    }

    /**
     * Publishes probes on {@code topic} at the remote until one comes through to {@code local}; then a last one at
     * QoS 1, which comes after every probe before it: what {@code local} gets up to it is dropped.
     */
    static void awaitSubscription(PahoClient far, PahoClient local, String topic) throws Exception {
        for (long deadline = System.nanoTime() + WAIT.toNanos(); System.nanoTime() < deadline; ) {
            far.publish(topic, "probe", 0, false);
            var message = local.inbox().poll(Duration.ofMillis(200));
            if (message != null && message.text().equals("probe")) {
                far.publish(topic, "last probe", 1, false);
                local.inbox().dropThrough("last probe", WAIT);
                return;
            }
        }
        throw new AssertionError("the bridge's subscription at the remote did not take within " + WAIT);
    }
}
