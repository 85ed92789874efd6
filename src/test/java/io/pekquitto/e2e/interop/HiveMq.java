package io.pekquitto.e2e.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The HiveMQ MQTT client (blocking API) as the interoperability tests use it: clients built for a
 * port, received messages read with a deadline, and disconnects that never throw from a finally.
 */
final class HiveMq {
    /** How long a test waits for one expected message. */
    static final Duration RECEIVE = Duration.ofSeconds(5);
    /** How long a test listens to conclude that nothing (more) arrives. */
    static final Duration QUIET = Duration.ofMillis(500);

    private HiveMq() {}

    static Mqtt5BlockingClient v5(int port, String clientId) {
        return MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
    }

    static Mqtt3BlockingClient v3(int port, String clientId) {
        return MqttClient.builder().useMqttVersion3().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
    }

    /** A v5 client connected with Clean Start 1 and no session expiry. */
    static Mqtt5BlockingClient connectedV5(int port, String clientId) {
        var client = v5(port, clientId);
        var connAck = client.connectWith().cleanStart(true).send();
        assertFalse(connAck.getReasonCode().isError(), connAck.toString());
        return client;
    }

    /** A v3 client connected with Clean Session 1. */
    static Mqtt3BlockingClient connectedV3(int port, String clientId) {
        var client = v3(port, clientId);
        client.connectWith().cleanSession(true).send();
        return client;
    }

    static void subscribe(Mqtt5BlockingClient client, String filter, MqttQos qos) {
        var subAck = client.subscribeWith().topicFilter(filter).qos(qos).send();
        assertEquals(qos.getCode(), subAck.getReasonCodes().get(0).getCode(), () -> "granted QoS: " + subAck);
    }

    static void subscribe(Mqtt3BlockingClient client, String filter, MqttQos qos) {
        var subAck = client.subscribeWith().topicFilter(filter).qos(qos).send();
        assertEquals(qos.getCode(), subAck.getReturnCodes().get(0).getCode(), () -> "granted QoS: " + subAck);
    }

    /** Messages on subscriptions made after this call, read with deadlines. */
    static Mqtt5BlockingClient.Mqtt5Publishes inbox(Mqtt5BlockingClient client) {
        return client.publishes(MqttGlobalPublishFilter.ALL);
    }

    static Mqtt3BlockingClient.Mqtt3Publishes inbox(Mqtt3BlockingClient client) {
        return client.publishes(MqttGlobalPublishFilter.ALL);
    }

    static Mqtt5Publish next(Mqtt5BlockingClient.Mqtt5Publishes inbox) throws InterruptedException {
        return inbox.receive(RECEIVE.toMillis(), TimeUnit.MILLISECONDS)
                .orElseThrow(() -> new AssertionError("no message within " + RECEIVE));
    }

    static Mqtt3Publish next(Mqtt3BlockingClient.Mqtt3Publishes inbox) throws InterruptedException {
        return inbox.receive(RECEIVE.toMillis(), TimeUnit.MILLISECONDS)
                .orElseThrow(() -> new AssertionError("no message within " + RECEIVE));
    }

    /** The next {@code count} messages, each within {@link #RECEIVE}. */
    static List<Mqtt5Publish> next(Mqtt5BlockingClient.Mqtt5Publishes inbox, int count) throws InterruptedException {
        var received = new ArrayList<Mqtt5Publish>(count);
        for (int i = 0; i < count; i++) received.add(next(inbox));
        return received;
    }

    static Optional<Mqtt5Publish> quiet(Mqtt5BlockingClient.Mqtt5Publishes inbox) throws InterruptedException {
        return inbox.receive(QUIET.toMillis(), TimeUnit.MILLISECONDS);
    }

    static Optional<Mqtt3Publish> quiet(Mqtt3BlockingClient.Mqtt3Publishes inbox) throws InterruptedException {
        return inbox.receive(QUIET.toMillis(), TimeUnit.MILLISECONDS);
    }

    static String text(Mqtt5Publish publish) {
        return new String(publish.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    static String text(Mqtt3Publish publish) {
        return new String(publish.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    /** Disconnects with DISCONNECT if still connected; for finally blocks. */
    static void disconnect(Mqtt5BlockingClient... clients) {
        for (var client : clients) {
            if (client == null || !client.getState().isConnected()) continue;
            client.toAsync().disconnect().orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }

    static void disconnect(Mqtt3BlockingClient... clients) {
        for (var client : clients) {
            if (client == null || !client.getState().isConnected()) continue;
            client.toAsync().disconnect().orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }
}
