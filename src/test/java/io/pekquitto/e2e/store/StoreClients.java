package io.pekquitto.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.V5Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The clients of the store-failure tests: a HiveMQ MQTT 5 publisher whose QoS 1 PUBLISHes are all in
 * flight at once and each answered with its PUBACK's reason code, and a Paho MQTT 5 subscriber with a
 * persistent session that goes offline and comes back for what its session kept.
 */
final class StoreClients {
    /** How soon after the disk has room a PUBLISH must be accepted again. */
    static final Duration RECOVERY = Duration.ofSeconds(10);
    static final int QUOTA_EXCEEDED = 0x97;

    private StoreClients() {}

    static Mqtt5AsyncClient publisher(int port) {
        var client = MqttClient.builder().useMqttVersion5().identifier(Names.clientId("pub"))
                .serverHost("127.0.0.1").serverPort(port).buildAsync();
        client.connectWith().cleanStart(true).send().join();
        return client;
    }

    /** Publishes {@code prefix-0..count-1} at QoS 1, all in flight at once; returns each one's PUBACK reason code. */
    static List<Integer> publish(Mqtt5AsyncClient client, String topic, String prefix, int count) {
        return publish(client, topic, prefix, 0, count, 0);
    }

    /**
     * Publishes {@code prefix-from..from+count-1} at QoS 1, each padded to about {@code size} bytes (the
     * name, a space, the padding), all in flight at once; returns each one's PUBACK reason code.
     */
    static List<Integer> publish(Mqtt5AsyncClient client, String topic, String prefix, int from, int count, int size) {
        var results = new ArrayList<CompletableFuture<Integer>>();
        for (int i = from; i < from + count; i++) {
            var name = prefix + "-" + i;
            var payload = size > name.length() ? name + " " + "x".repeat(size - name.length() - 1) : name;
            results.add(client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(payload.getBytes(StandardCharsets.UTF_8)).send()
                    .thenApply(StoreClients::reason).exceptionally(StoreClients::reason));
        }
        return results.stream().map(result -> result.orTimeout(10, TimeUnit.SECONDS).join()).toList();
    }

    private static int reason(Mqtt5PublishResult result) {
        if (result.getError().isPresent()) return reason(result.getError().get());
        return ((Mqtt5PublishResult.Mqtt5Qos1Result) result).getPubAck().getReasonCode().getCode();
    }

    private static int reason(Throwable failure) {
        var cause = failure instanceof CompletionException ? failure.getCause() : failure;
        if (cause instanceof Mqtt5PubAckException refused) return refused.getMqttMessage().getReasonCode().getCode();
        throw new AssertionError("no PUBACK: " + cause, cause);
    }

    /** A persistent session (expiry one hour) subscribed to {@code topic} at QoS 1, then offline. */
    static void persistentSubscriber(int port, String clientId, String topic) throws Exception {
        try (var subscriber = V5Client.connect(port, clientId, options -> {
            options.setCleanStart(true);
            options.setSessionExpiryInterval(3_600L);
        })) {
            subscriber.subscribe(topic, 1);
            subscriber.disconnect();
        }
    }

    /** The offline subscriber comes back: the names of what its session kept, until quiet. */
    static Set<String> resume(int port, String clientId) throws Exception {
        try (var subscriber = V5Client.connect(port, clientId, options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(3_600L);
        })) {
            assertTrue(subscriber.sessionPresent(), "the session is still there");
            var payloads = new TreeSet<String>();
            for (var message : subscriber.inbox().within(Duration.ofSeconds(3))) payloads.add(message.text().split(" ")[0]);
            subscriber.disconnect();
            return payloads;
        }
    }

    static Set<String> names(String prefix, int count) {
        var names = new TreeSet<String>();
        for (int i = 0; i < count; i++) names.add(prefix + "-" + i);
        return names;
    }

    /** Publishes until a PUBACK says success, within {@link #RECOVERY}; returns how long that took. */
    static Duration publishUntilAccepted(Mqtt5AsyncClient client, String topic) throws InterruptedException {
        long start = System.nanoTime();
        for (int attempt = 0; ; attempt++) {
            var reasons = publish(client, topic, "after", 1);
            if (reasons.get(0) == 0) return Duration.ofNanos(System.nanoTime() - start);
            assertEquals(QUOTA_EXCEEDED, reasons.get(0));
            assertTrue(System.nanoTime() - start < RECOVERY.toNanos(), "still refused " + RECOVERY + " after the disk had room");
            Thread.sleep(100);
        }
    }
}
