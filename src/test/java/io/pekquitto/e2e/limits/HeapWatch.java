package io.pekquitto.e2e.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.shards.memory.MemoryBudget;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * What the memory-budget tests watch of a broker they started as a child process: that it still serves
 * (a new client connects and round-trips a QoS 1 message), its RSS, its {@code $SYS/broker/...} figures,
 * and that its log never says it ran out of heap.
 */
final class HeapWatch {
    private static final Duration SYS_WAIT = Duration.ofSeconds(15);

    private HeapWatch() {}

    /** The broker's resident set size, from {@code /proc/PID/status}, in MiB. */
    static long rssMiB(RunnableJar broker) throws IOException {
        for (var line : Files.readAllLines(Path.of("/proc", Long.toString(broker.process().pid()), "status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
        return fail("no VmRSS for " + broker.process().pid());
    }

    /** A new Paho MQTT 5 client connects, subscribes and gets its own QoS 1 message back within 5 s. */
    static void roundTrip(RunnableJar broker, String clientId) throws Exception {
        try (var probe = V5Client.connect(broker.port(), clientId, options -> options.setConnectionTimeout(5))) {
            var topic = "probe/" + clientId;
            assertEquals(1, probe.subscribe(topic, 1));
            probe.publish(topic, clientId.getBytes(StandardCharsets.UTF_8), 1, false);
            assertEquals(clientId, probe.inbox().next(Duration.ofSeconds(5)).text(), "the probe's own message");
        }
    }

    /** A raw MQTT 3.1.1 client subscribed to {@code filter} at {@code qos}, its receive buffer small, that reads nothing more. */
    static RawClient stuckSubscriber(RunnableJar broker, String clientId, String filter, int qos) throws IOException {
        var client = RawClient.open(broker.port(), 4096);
        client.send(RawClient.Connect.of(RawClient.V311, clientId).withKeepAlive(0).bytes());
        assertEquals(0, client.expect(RawClient.CONNACK).connAckReason());
        client.send(RawClient.subscribe(RawClient.V311, 1, new RawClient.Filter(filter, qos)));
        client.expect(RawClient.SUBACK);
        return client;
    }

    /** The figures the tests read, each of which must have come before a predicate over them is asked. */
    private static final List<String> FIGURES = List.of("publish/messages/received", "publish/messages/dropped",
            "store/messages/count", "memory/used", "memory/budget", "memory/dropped", "memory/disconnected",
            "memory/sessions-refused", "memory/retained-refused");

    /**
     * The broker's {@code $SYS/broker/...} topics, read with a Paho client until each of {@link #FIGURES} has come
     * and {@code done} holds (sys-interval should be short); the keys are the topics without that prefix.
     */
    static Map<String, Long> sys(RunnableJar broker, Predicate<Map<String, Long>> done) throws MqttException, InterruptedException {
        var values = new ConcurrentHashMap<String, Long>();
        var client = new MqttClient("tcp://127.0.0.1:" + broker.port(), "sys-" + System.nanoTime(), new MemoryPersistence());
        client.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) {}

            @Override public void messageArrived(String topic, MqttMessage message) {
                var value = new String(message.getPayload(), StandardCharsets.UTF_8);
                if (value.matches("-?[0-9]+")) values.put(topic.substring("$SYS/broker/".length()), Long.parseLong(value));
            }

            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        var options = new MqttConnectOptions();
        options.setConnectionTimeout(5);
        client.connect(options);
        try {
            client.subscribe("$SYS/broker/#", 0);
            Eventually.await(SYS_WAIT, () -> "$SYS to get there: " + values,
                    () -> values.keySet().containsAll(FIGURES) && done.test(values));
            return Map.copyOf(values);
        } finally {
            client.disconnect(1000);
            client.close();
        }
    }

    /**
     * What the broker counts stays within its budget as MemoryBudget bounds it: the budget, the reserve of a
     * tenth past it from which a client that holds nothing still gets a message, and one message more.
     */
    static void assertWithinBudget(Map<String, Long> sys, long largestPayload) {
        long budget = sys.get("memory/budget");
        long bound = budget + budget / 10 + largestPayload + MemoryBudget.MESSAGE_OVERHEAD;
        assertTrue(sys.get("memory/used") <= bound, () -> "memory/used past " + bound + ": " + sys);
    }

    /** The broker's log has no OutOfMemoryError. */
    static void assertNoOutOfMemory(RunnableJar broker) throws IOException {
        var log = broker.log();
        assertFalse(log.contains("OutOfMemoryError"), () -> "the broker ran out of heap: " + log.substring(Math.max(0, log.indexOf("OutOfMemoryError") - 2000)));
    }
}
