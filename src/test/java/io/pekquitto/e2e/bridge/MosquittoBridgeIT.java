package io.pekquitto.e2e.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.Never;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mosquitto (2.0, Debian's package) bridged both ways to pekquitto ({@code connection} with {@code topic ... both
 * 1}): a message published on either side reaches the subscribers of both once, and never comes back to the side
 * it was published on. With {@code mqttv311} the bridge announces itself by the bridge bit ({@code try_private},
 * level 0x84) and pekquitto gives its subscriptions No Local and Retain As Published; with {@code mqttv50} it asks
 * for both itself. Retained messages cross retained, both ways.
 */
class MosquittoBridgeIT {
    /** How long a message that arrived is watched for a second copy. */
    private static final Duration WATCH = Duration.ofSeconds(2);
    /** Mosquitto retries its bridge every second ({@code restart_timeout 1}); connecting may take a few. */
    private static final Duration BRIDGED = Duration.ofSeconds(20);
    /** The payload of the messages that find out whether the bridge is up; the tests count the others. */
    private static final String PROBE = "probe";

    /** A test for each of Mosquitto 2.0's bridge protocols: 3.1.1 with the bridge bit, and MQTT 5. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest(name = "bridge_protocol_version {0}")
    @ValueSource(strings = {"mqttv311", "mqttv50"})
    @Timeout(90)
    @interface EachBridgeProtocol {}

    @RegisterExtension
    static final BrokerExtension pekquitto = BrokerExtension.inProcess();

    @TempDir
    static Path directory;

    /**
     * Mosquitto bridged to pekquitto on {@code root/#}, and a subscriber to it on each side, once messages cross
     * both ways. The subscribers publish too: each gets its own messages from its own broker, once.
     */
    private record Bridged(MosquittoBroker mosquitto, PahoClient atPekquitto, PahoClient atMosquitto) implements AutoCloseable {
        static Bridged start(String protocol, String root) throws Exception {
            var mosquitto = MosquittoBroker.start(directory, List.of(
                    "connection " + Names.clientId("conn"),
                    "address 127.0.0.1:" + pekquitto.port(),
                    "remote_clientid " + Names.clientId("bridge"),
                    "topic " + root + "/# both 1",
                    "bridge_protocol_version " + protocol,
                    "try_private true",
                    "cleansession true",
                    "restart_timeout 1",
                    "notifications false"));
            var bridged = new Bridged(mosquitto, pekquitto.v3(Names.clientId("p-sub")),
                    V3Client.connect(mosquitto.port(), Names.clientId("m-sub"), options -> {}));
            try {
                bridged.atPekquitto.subscribe(root + "/#", 1);
                bridged.atMosquitto.subscribe(root + "/#", 1);
                bridged.awaitBridged(bridged.atPekquitto, bridged.atMosquitto, root + "/to-mosquitto");
                bridged.awaitBridged(bridged.atMosquitto, bridged.atPekquitto, root + "/to-pekquitto");
            } catch (Exception | AssertionError e) {
                bridged.close();
                throw e;
            }
            return bridged;
        }

        /**
         * Publishes probes on {@code topic} from {@code from} until {@code to}, on the other side, gets one: the
         * bridge is up that way. The topic is the direction's own: {@code from} gets its own probes too.
         */
        private void awaitBridged(PahoClient from, PahoClient to, String topic) {
            Eventually.await(BRIDGED, () -> "a message across the bridge on " + topic + "; Mosquitto: " + mosquitto.output(), () -> {
                from.publish(topic, PROBE, 1, false);
                for (var message = to.inbox().poll(Duration.ofMillis(200)); message != null; message = to.inbox().poll(Duration.ZERO)) {
                    if (message.topic().equals(topic)) return true;
                }
                return false;
            });
        }

        @Override
        public void close() {
            atMosquitto.close();
            atPekquitto.close();
            mosquitto.close();
        }
    }

    /** The payloads {@code inbox} holds now but the probes, added to {@code seen}, counted by payload. */
    private static Map<String, Long> counted(Inbox inbox, List<String> seen) throws InterruptedException {
        for (var message = inbox.poll(Duration.ZERO); message != null; message = inbox.poll(Duration.ZERO)) {
            if (!message.text().equals(PROBE)) seen.add(message.text());
        }
        return seen.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    @EachBridgeProtocol
    void eachMessageCrossesOnceAndNeverComesBack(String protocol) throws Exception {
        String root = Names.topic("t");
        try (var bridged = Bridged.start(protocol, root)) {
            bridged.atMosquitto.publish(root + "/x", "from Mosquitto", 1, false);
            bridged.atPekquitto.publish(root + "/y", "from pekquitto", 1, false);
            var both = List.of("from Mosquitto", "from pekquitto");
            var seenAtPekquitto = new ArrayList<String>();
            var seenAtMosquitto = new ArrayList<String>();
            Eventually.await(Duration.ofSeconds(10), () -> "both messages on both sides; pekquitto's subscriber got "
                    + seenAtPekquitto + ", Mosquitto's " + seenAtMosquitto, () ->
                    counted(bridged.atPekquitto.inbox(), seenAtPekquitto).keySet().containsAll(both)
                    & counted(bridged.atMosquitto.inbox(), seenAtMosquitto).keySet().containsAll(both));
            // A message that came back would come a second time to the subscriber of the side it was published on.
            Never.within(WATCH, "a message twice", () -> counted(bridged.atPekquitto.inbox(), seenAtPekquitto).values()
                    .stream().anyMatch(n -> n > 1) | counted(bridged.atMosquitto.inbox(), seenAtMosquitto).values()
                    .stream().anyMatch(n -> n > 1));
            var once = Map.of("from Mosquitto", 1L, "from pekquitto", 1L);
            assertEquals(once, counted(bridged.atPekquitto.inbox(), seenAtPekquitto), "at pekquitto's subscriber");
            assertEquals(once, counted(bridged.atMosquitto.inbox(), seenAtMosquitto), "at Mosquitto's subscriber");
        }
    }

    @EachBridgeProtocol
    void retainedMessagesCrossRetained(String protocol) throws Exception {
        String root = Names.topic("t");
        try (var bridged = Bridged.start(protocol, root)) {
            bridged.atPekquitto.publish(root + "/from-pekquitto", "kept at pekquitto", 1, true);
            bridged.atMosquitto.publish(root + "/from-mosquitto", "kept at Mosquitto", 1, true);
            // Each side stored what crossed as retained only if the other sent it with its retain flag.
            try (var lateAtMosquitto = V3Client.connect(bridged.mosquitto.port(), Names.clientId("m-late"), options -> {});
                 var lateAtPekquitto = pekquitto.v3(Names.clientId("p-late"))) {
                for (var late : List.of(lateAtMosquitto, lateAtPekquitto)) {
                    Eventually.await(Duration.ofSeconds(10), "both retained messages at " + late, () -> {
                        late.subscribe(root + "/+", 1);  // again until both have crossed: each time, the retained ones
                        var texts = late.inbox().within(Inbox.QUIET).stream().filter(Inbox.Message::retained)
                                .map(Inbox.Message::text).toList();
                        return texts.containsAll(List.of("kept at pekquitto", "kept at Mosquitto"));
                    });
                }
            }
        }
    }
}
