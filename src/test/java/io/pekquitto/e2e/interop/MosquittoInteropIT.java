package io.pekquitto.e2e.interop;

import static io.pekquitto.e2e.interop.MosquittoClients.FORMAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mosquitto's command-line clients (2.0, a C implementation of both versions) as child processes,
 * on a 2-shard broker: two processes started one after the other connect to different shards.
 * They fail when mosquitto_pub is not on the PATH ({@code .ci/run} installs mosquitto-clients).
 */
class MosquittoInteropIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("shards = 2");

    private static List<String> sub(String version, String clientId, String... options) {
        return MosquittoClients.sub(broker.port(), version, clientId, options);
    }

    private static List<String> pub(String version, String clientId, String... options) {
        return MosquittoClients.pub(broker.port(), version, clientId, options);
    }

    private static void publish(String version, String... options) throws Exception {
        try (var publisher = ChildProcess.start(pub(version, Names.clientId("mpub"), options))) {
            assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
        }
    }

    private static boolean suback(String line) {
        return line.contains("received SUBACK");
    }

    // ---- sessions

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "mqttv5"})
    @Timeout(40)
    @DisplayName("mosquitto_sub -c: the QoS 1 messages published while it is away arrive, in order, when it reconnects [MQTT-3.1.2-4] [MQTT-3.1.2-5] (3.1.1) [MQTT-3.1.2-5] (5.0)")
    void persistentSession(String version) throws Exception {
        String topic = Names.topic("mosq-session");
        String clientId = Names.clientId("msession");
        // -E: exit once the SUBACK is in, with a normal DISCONNECT; -c keeps the session (v5: it never expires).
        try (var first = ChildProcess.start(sub(version, clientId, "-c", "-q", "1", "-t", topic, "-E"))) {
            assertEquals(0, first.awaitExit(), () -> "mosquitto_sub -E failed: " + first.output());
        }
        for (int i = 0; i < 3; i++) publish(version, "-q", "1", "-t", topic, "-m", "offline " + i);
        try (var resumed = ChildProcess.start(sub(version, clientId, "-c", "-q", "1", "-t", topic,
                "-C", "3", "-W", "10", "-F", FORMAT))) {
            assertEquals(0, resumed.awaitExit(), () -> "mosquitto_sub failed: " + resumed.output());
            assertEquals(List.of(topic + "|offline 0|1|0", topic + "|offline 1|1|0", topic + "|offline 2|1|0"),
                    resumed.linesMatching(line -> line.startsWith(topic + "|")));
        }
        // Without -c: Clean Start 1 discards the session, so nothing stays behind.
        try (var cleanup = ChildProcess.start(sub(version, clientId, "-t", topic, "-E"))) {
            assertEquals(0, cleanup.awaitExit(), () -> "mosquitto_sub cleanup failed: " + cleanup.output());
        }
    }

    // ---- wills

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "mqttv5"})
    @Timeout(40)
    @DisplayName("a mosquitto_sub killed with SIGKILL has its will (--will-topic, --will-payload) delivered to another mosquitto_sub [MQTT-3.1.2-8]")
    void willOnSigkill(String version) throws Exception {
        String willTopic = Names.topic("mosq-will");
        try (var watcher = ChildProcess.start(sub(version, Names.clientId("mwatch"), "-q", "1", "-t", willTopic,
                "-C", "1", "-W", "15", "-d", "-F", FORMAT));
             var doomed = ChildProcess.start(sub(version, Names.clientId("mdoomed"), "-q", "1",
                     "-t", Names.topic("mosq-will-other"), "-d", "--will-topic", willTopic,
                     "--will-payload", "killed", "--will-qos", "1"))) {
            watcher.awaitLine(MosquittoInteropIT::suback);
            doomed.awaitLine(MosquittoInteropIT::suback);
            doomed.kill();
            watcher.awaitLine(line -> line.equals(willTopic + "|killed|1|0"));
            assertEquals(0, watcher.awaitExit(), () -> "mosquitto_sub failed: " + watcher.output());
        }
    }

    // ---- retained messages

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "mqttv5"})
    @Timeout(40)
    @DisplayName("mosquitto_pub -r sets a retained message (RETAIN 1 for a later mosquitto_sub); -r -n clears it [MQTT-3.3.1-5] [MQTT-3.3.1-8] [MQTT-3.3.1-10] (3.1.1) [MQTT-3.3.1-5] [MQTT-3.3.1-6] [MQTT-3.3.1-9] (5.0)")
    void retained(String version) throws Exception {
        String topic = Names.topic("mosq-retained");
        publish(version, "-q", "1", "-r", "-t", topic, "-m", "kept");
        try (var late = ChildProcess.start(sub(version, Names.clientId("mlate"), "-q", "1", "-t", topic,
                "-C", "1", "-W", "10", "-F", FORMAT))) {
            late.awaitLine(line -> line.equals(topic + "|kept|1|1"));
            assertEquals(0, late.awaitExit(), () -> "mosquitto_sub failed: " + late.output());
        }
        publish(version, "-q", "1", "-r", "-n", "-t", topic);
        try (var later = ChildProcess.start(sub(version, Names.clientId("mlater"), "-q", "1", "-t", topic,
                "-C", "1", "-W", "10", "-d", "-F", FORMAT))) {
            later.awaitLine(MosquittoInteropIT::suback);
            publish(version, "-q", "1", "-t", topic, "-m", "live");
            // The first message it gets is the live one: nothing retained was replayed.
            String first = later.awaitLine(line -> line.startsWith(topic + "|"));
            assertEquals(topic + "|live|1|0", first);
            assertEquals(0, later.awaitExit(), () -> "mosquitto_sub failed: " + later.output());
        }
    }

    // ---- shared subscriptions

    @Test
    @Timeout(60)
    @DisplayName("5.0: two mosquitto_sub on $share/g/t each get some, together all of 200 QoS 1 messages from mosquitto_pub -l, each exactly once (4.8.2)")
    void sharedSubscription() throws Exception {
        String topic = Names.topic("mosq-shared");
        String filter = "$share/" + "g" + Names.clientId("grp").replace('-', '_') + "/" + topic;
        int count = 200;
        try (var a = ChildProcess.start(sub("mqttv5", Names.clientId("mshareA"), "-q", "1", "-t", filter, "-d", "-F", FORMAT));
             var b = ChildProcess.start(sub("mqttv5", Names.clientId("mshareB"), "-q", "1", "-t", filter, "-d", "-F", FORMAT))) {
            a.awaitLine(MosquittoInteropIT::suback);
            b.awaitLine(MosquittoInteropIT::suback);
            String input = IntStream.range(0, count).mapToObj(i -> "m" + i + "\n").collect(Collectors.joining());
            try (var publisher = ChildProcess.start(pub("mqttv5", Names.clientId("mpub"), "-q", "1", "-t", topic, "-l"), input)) {
                assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub -l failed: " + publisher.output());
            }
            Predicate<String> onTopic = line -> line.startsWith(topic + "|");
            IntSupplier received = () -> a.linesMatching(onTopic).size() + b.linesMatching(onTopic).size();
            Eventually.await(Duration.ofSeconds(15), () -> count + " messages across the two; " + received.getAsInt(),
                    () -> received.getAsInt() >= count);
            Never.within(HiveMq.QUIET, "a message given twice", () -> received.getAsInt() > count);
            var first = a.linesMatching(onTopic);
            var second = b.linesMatching(onTopic);
            assertFalse(first.isEmpty(), "the first subscriber got none");
            assertFalse(second.isEmpty(), "the second subscriber got none");
            var all = new ArrayList<>(first);
            all.addAll(second);
            var expected = IntStream.range(0, count).mapToObj(i -> topic + "|m" + i + "|1|0").collect(Collectors.toSet());
            assertEquals(expected, new HashSet<>(all), "together all messages");
            assertEquals(count, all.size(), "each exactly once (first " + first.size() + ", second " + second.size() + ")");
        }
    }

    // ---- topic aliases

    @Test
    @Timeout(40)
    @DisplayName("5.0: two mosquitto_pub -D publish topic-alias 1 on different topics (aliases are per connection) reach a mosquitto_sub under their own topics, without a Topic Alias towards it [MQTT-3.3.2-7] [MQTT-3.3.2-12] [MQTT-3.1.2-27]")
    void topicAliases() throws Exception {
        String root = Names.topic("mosq-alias");
        // mosquitto_sub announces no Topic Alias Maximum, so the broker must send it none (%A prints one if
        // present). With -D connect topic-alias-maximum 10, mosquitto_sub 2.0.11 stops with "network protocol
        // error" at the second PUBLISH, the first to use an alias with an empty Topic Name; libmosquitto 2.0
        // does not seem to resolve the aliases it receives, while the HiveMQ client, given the same maximum,
        // resolves the broker's aliases (HiveMqClientIT.topicAliases).
        try (var subscriber = ChildProcess.start(sub("mqttv5", Names.clientId("malias"), "-q", "1", "-t", root + "/#",
                "-C", "6", "-W", "15", "-d", "-F", "%A|%t|%p"))) {
            subscriber.awaitLine(MosquittoInteropIT::suback);
            for (String name : List.of("a", "b")) {
                try (var publisher = ChildProcess.start(pub("mqttv5", Names.clientId("mpub"), "-q", "1",
                        "-t", root + "/" + name, "-D", "publish", "topic-alias", "1", "-l"), name + "1\n" + name + "2\n" + name + "3\n")) {
                    assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
                }
            }
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
            assertEquals(List.of("|" + root + "/a|a1", "|" + root + "/a|a2", "|" + root + "/a|a3",
                            "|" + root + "/b|b1", "|" + root + "/b|b2", "|" + root + "/b|b3"),
                    subscriber.linesMatching(line -> line.contains(root + "/") && !line.startsWith("Client ")));
        }
    }

    // ---- subscription identifiers

    @Test
    @Timeout(40)
    @DisplayName("5.0: mosquitto_sub -D subscribe subscription-identifier 7 receives the message with Subscription Identifier 7 [MQTT-3.3.4-3]")
    void subscriptionIdentifier() throws Exception {
        String topic = Names.topic("mosq-subid");
        try (var subscriber = ChildProcess.start(sub("mqttv5", Names.clientId("msubid"), "-q", "1", "-t", topic,
                "-D", "subscribe", "subscription-identifier", "7", "-C", "1", "-W", "10", "-d", "-F", "%S|%t|%p"))) {
            subscriber.awaitLine(MosquittoInteropIT::suback);
            publish("mqttv5", "-q", "1", "-t", topic, "-m", "identified");
            subscriber.awaitLine(line -> line.equals("7|" + topic + "|identified"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }
}
