package io.pekquitto.e2e.store;

import static io.pekquitto.e2e.store.StoreClients.QUOTA_EXCEEDED;
import static io.pekquitto.e2e.store.StoreClients.names;
import static io.pekquitto.e2e.store.StoreClients.persistentSubscriber;
import static io.pekquitto.e2e.store.StoreClients.publish;
import static io.pekquitto.e2e.store.StoreClients.publishUntilAccepted;
import static io.pekquitto.e2e.store.StoreClients.publisher;
import static io.pekquitto.e2e.store.StoreClients.resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.shards.store.InterceptedStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that cannot write (issue 24): the broker, a child process, runs on a real RocksDB store whose
 * writes fail through the {@code Store} seam while a file exists ({@link FaultyStoreBroker}), as on a
 * full disk. While they fail, every QoS 1 PUBLISH is refused with 0x97 (a 3.1.1 publisher is
 * disconnected), a persistent session gets CONNACK 0x97 (3.1.1: 3), what needs no write goes on, no
 * connection is reset and no shard restarts; once the file is gone the broker is normal again within 10 s,
 * without a restart, and every message it acknowledged reaches the offline subscriber; a kill -9 while
 * the store fails loses nothing acknowledged either. {@code DiskFullIT} fills a real filesystem.
 */
class StoreFailureIT {
    private static final int BEFORE = 50;
    private static final int DURING = 30;

    @TempDir
    Path dir;

    private String configuration(String durability, int shards) {
        return """
                listeners = [{host = "127.0.0.1", port = 0}]
                shards = %d
                sys-interval = 1s
                store { enabled = true, path = "%s", durability = %s }
                """.formatted(shards, dir.resolve("data").toAbsolutePath(), durability);
    }

    private Path faults() {
        return dir.resolve("faults");
    }

    private RunnableJar start(String durability, int shards) throws Exception {
        return RunnableJar.startMain(configuration(durability, shards), FaultyStoreBroker.class, List.of(InterceptedStore.class),
                faults().toString());
    }

    @ParameterizedTest(name = "durability = {0}, shards = {1}")
    @CsvSource({"batch, 1", "batch, 2", "fsync, 1", "fsync, 2"})
    @DisplayName("while the store fails, what needs a write is refused with a reason code; room again: normal within 10 s")
    void aFailingStoreIsAStateTheBrokerRecoversFromWithoutARestart(String durability, int shards) throws Exception {
        var topic = Names.topic("store");
        var offline = Names.clientId("offline");
        try (var broker = start(durability, shards);
             var online = V3Client.connect(broker.port(), Names.clientId("online"), options -> {});
             var sys = V5Client.connect(broker.port(), Names.clientId("sys"), options -> {})) {
            persistentSubscriber(broker.port(), offline, topic);
            online.subscribe(topic, 1);
            sys.subscribe("$SYS/broker/store/state", 0);
            var publisher = publisher(broker.port());
            assertEquals(List.of(), publish(publisher, topic, "before", BEFORE).stream().filter(r -> r != 0).toList());
            assertEquals(names("before", BEFORE), online.inbox().next(BEFORE, Inbox.TIMEOUT).stream()
                    .map(Inbox.Message::text).collect(TreeSet::new, Set::add, Set::addAll));

            Files.createFile(faults());  // the disk is full
            var during = publish(publisher, topic, "during", DURING);
            assertEquals(DURING, during.stream().filter(r -> r == QUOTA_EXCEEDED).count(), "every one refused: " + during);
            awaitSys(sys, "failing");
            var connAck = assertThrows(Mqtt5ConnAckException.class, () -> MqttClient.builder().useMqttVersion5()
                    .identifier(Names.clientId("new")).serverHost("127.0.0.1").serverPort(broker.port()).buildBlocking()
                    .connectWith().cleanStart(true).sessionExpiryInterval(60).send());
            assertEquals(QUOTA_EXCEEDED, connAck.getMqttMessage().getReasonCode().getCode());
            var v3Refused = assertThrows(MqttException.class, () -> V3Client.connect(broker.port(), Names.clientId("v3"),
                    options -> options.setCleanSession(false)));
            assertEquals(MqttException.REASON_CODE_BROKER_UNAVAILABLE, v3Refused.getReasonCode());
            try (var v3Publisher = V3Client.connect(broker.port(), Names.clientId("v3pub"), options -> {})) {
                assertThrows(MqttException.class, () -> v3Publisher.publish(topic, "v3", 1, false));  // no code: closed
                v3Publisher.connectionLost().get(5, TimeUnit.SECONDS);
            }
            try (var clean = V5Client.connect(broker.port(), Names.clientId("clean"), options -> {})) {
                clean.subscribe(topic + "/qos0", 0);  // what needs no write goes on
                clean.publish(topic + "/qos0", "still here", 0, false);
                assertEquals("still here", clean.inbox().next().text());
            }

            Files.delete(faults());  // room again
            var recovered = publishUntilAccepted(publisher, topic);
            System.out.printf("%s, %d shards: refused while failing, accepted %d ms after the disk had room%n",
                    durability, shards, recovered.toMillis());
            awaitSys(sys, "ok");
            var delivered = resume(broker.port(), offline);
            var acknowledged = names("before", BEFORE);
            acknowledged.add("after-0");
            var missing = new TreeSet<>(acknowledged);
            missing.removeAll(delivered);
            assertEquals(Set.of(), missing, "acknowledged, and not delivered");
            assertTrue(online.isConnected(), "no connection was reset");
            assertFalse(broker.log().toLowerCase().contains("restart"), "no shard restarted: " + broker.log());
            publisher.disconnect().join();
        }
    }

    private static void awaitSys(V5Client sys, String state) {
        Eventually.await(Duration.ofSeconds(5), "$SYS/broker/store/state to say " + state,
                () -> sys.inbox().next(Duration.ofSeconds(5)).text().equals(state));
    }

    @ParameterizedTest(name = "durability = {0}")
    @ValueSource(strings = {"batch", "fsync"})
    @DisplayName("a kill -9 while the store fails loses nothing acknowledged")
    void aKillWhileTheStoreFailsLosesNothingAcknowledged(String durability) throws Exception {
        var topic = Names.topic("killed");
        var offline = Names.clientId("offline");
        var broker = start(durability, 2);
        try {
            persistentSubscriber(broker.port(), offline, topic);
            var publisher = publisher(broker.port());
            assertEquals(List.of(), publish(publisher, topic, "before", BEFORE).stream().filter(r -> r != 0).toList());
            Files.createFile(faults());
            assertTrue(publish(publisher, topic, "during", DURING).stream().allMatch(r -> r == QUOTA_EXCEEDED));
        } finally {
            broker.kill();
        }
        Files.delete(faults());
        try (var restarted = start(durability, 2)) {
            var delivered = resume(restarted.port(), offline);
            assertTrue(delivered.containsAll(names("before", BEFORE)), "acknowledged before the kill: " + delivered);
        }
    }
}
