package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.subscribe.suback.Mqtt3SubAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.subscribe.suback.Mqtt5SubAckReasonCode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.paho.client.mqttv3.MqttException;

/** The HiveMQ clients the high-volume tests use, connected through {@link MeshBroker#on}. */
final class Clients {
    static final long CONNECT_SECONDS = 5;
    static final long PUBLISH_ALL_SECONDS = 20;
    private static final AtomicInteger IDS = new AtomicInteger();

    private Clients() {}

    /** A client id unique in the run. */
    static String id(String role) {
        return "shards-" + role + "-" + IDS.incrementAndGet();
    }

    static Mqtt5AsyncClient v5(MeshBroker broker, int shard, String clientId) throws Exception {
        var client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(broker.port()).buildAsync();
        var connAck = broker.on(shard, () -> client.connectWith().cleanStart(true).send().get(CONNECT_SECONDS, TimeUnit.SECONDS));
        assertFalse(connAck.getReasonCode().isError(), connAck.toString());
        return client;
    }

    static Mqtt3AsyncClient v3(MeshBroker broker, int shard, String clientId) throws Exception {
        var client = MqttClient.builder().useMqttVersion3().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(broker.port()).buildAsync();
        broker.on(shard, () -> client.connectWith().cleanSession(true).send().get(CONNECT_SECONDS, TimeUnit.SECONDS));
        return client;
    }

    static void subscribe(Mqtt5AsyncClient client, String filter, MqttQos qos, Received into) throws Exception {
        var subAck = client.subscribeWith().topicFilter(filter).qos(qos)
                .callback(publish -> into.add(publish.getPayloadAsBytes()))
                .send().get(CONNECT_SECONDS, TimeUnit.SECONDS);
        assertEquals(List.of(granted5(qos)), subAck.getReasonCodes(), "granted QoS");
    }

    static void subscribe(Mqtt3AsyncClient client, String filter, MqttQos qos, Received into) throws Exception {
        var subAck = client.subscribeWith().topicFilter(filter).qos(qos)
                .callback(publish -> into.add(publish.getPayloadAsBytes()))
                .send().get(CONNECT_SECONDS, TimeUnit.SECONDS);
        assertEquals(List.of(granted3(qos)), subAck.getReturnCodes(), "granted QoS");
    }

    private static Mqtt5SubAckReasonCode granted5(MqttQos qos) {
        return switch (qos) {
            case AT_MOST_ONCE -> Mqtt5SubAckReasonCode.GRANTED_QOS_0;
            case AT_LEAST_ONCE -> Mqtt5SubAckReasonCode.GRANTED_QOS_1;
            case EXACTLY_ONCE -> Mqtt5SubAckReasonCode.GRANTED_QOS_2;
        };
    }

    private static Mqtt3SubAckReturnCode granted3(MqttQos qos) {
        return switch (qos) {
            case AT_MOST_ONCE -> Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_0;
            case AT_LEAST_ONCE -> Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_1;
            case EXACTLY_ONCE -> Mqtt3SubAckReturnCode.SUCCESS_MAXIMUM_QOS_2;
        };
    }

    /** Publishes {@code source:0 .. source:count-1} in order without waiting in between. */
    static CompletableFuture<Void> publishAll(Mqtt5AsyncClient client, String topic, MqttQos qos, String source, int count) {
        return publishAll(client, topic, qos, source, 0, count);
    }

    /** Publishes {@code source:from .. source:to-1} in order without waiting in between. */
    static CompletableFuture<Void> publishAll(Mqtt5AsyncClient client, String topic, MqttQos qos, String source, int from, int to) {
        var sent = new ArrayList<CompletableFuture<?>>(to - from);
        for (int i = from; i < to; i++) {
            sent.add(client.publishWith().topic(topic).qos(qos).payload(Received.payload(source, i)).send()
                    .thenAccept(result -> result.getError().ifPresent(error -> {
                        throw new AssertionError("publish failed: " + result, error);
                    })));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    static CompletableFuture<Void> publishAll(Mqtt3AsyncClient client, String topic, MqttQos qos, String source, int count) {
        var sent = new ArrayList<CompletableFuture<?>>(count);
        for (int i = 0; i < count; i++) {
            sent.add(client.publishWith().topic(topic).qos(qos).payload(Received.payload(source, i)).send());
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    static void await(CompletableFuture<?> future) throws Exception {
        future.get(PUBLISH_ALL_SECONDS, TimeUnit.SECONDS);
    }

    static void disconnect(Mqtt5AsyncClient... clients) {
        for (var client : clients) {
            if (client != null && client.getState().isConnected()) client.disconnect().orTimeout(CONNECT_SECONDS, TimeUnit.SECONDS).join();
        }
    }

    /** Disconnects and frees what a test connected, for its {@code @AfterEach}. */
    static void disconnect(List<Mqtt5AsyncClient> clients, List<org.eclipse.paho.client.mqttv3.MqttClient> pahoClients)
            throws MqttException {
        clients.forEach(Clients::disconnect);
        for (var client : pahoClients) {
            if (client.isConnected()) client.disconnect();
            client.close();
        }
    }

    static void disconnect(Mqtt3AsyncClient... clients) {
        for (var client : clients) {
            if (client != null && client.getState().isConnected()) client.disconnect().orTimeout(CONNECT_SECONDS, TimeUnit.SECONDS).join();
        }
    }
}
