package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** One shard: the path without the mesh, for the same QoS 1 round trip between two clients. */
@Timeout(60)
class SingleShardIT {
    private static final int MESSAGES = 1_000;

    @RegisterExtension
    static final MeshBroker broker = MeshBroker.withShards(1);

    @Test
    void qos1BetweenTwoClientsArrivesOnceEachInOrder() throws Exception {
        var received = new Received();
        var subscriber = new MqttClient(broker.uri(), Clients.id("sub311"), new MemoryPersistence());
        subscriber.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) {}
            @Override public void messageArrived(String topic, MqttMessage message) { received.add(message.getPayload()); }
            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        Mqtt5AsyncClient publisher = null;
        try {
            var options = new MqttConnectOptions();
            options.setCleanSession(true);
            broker.on(0, () -> subscriber.connectWithResult(options));
            assertArrayEquals(new int[] {1}, subscriber.subscribeWithResponse("single/+", 1).getGrantedQos());
            publisher = Clients.v5(broker, 0, Clients.id("pub"));

            Clients.await(Clients.publishAll(publisher, "single/one", MqttQos.AT_LEAST_ONCE, "p", MESSAGES));

            received.awaitAtLeast(MESSAGES, Duration.ofSeconds(20));
            Never.within(Duration.ofMillis(300), "a message more", () -> received.sequencesFrom("p").size() > MESSAGES);
            assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("p"), MESSAGES));
            assertFalse(broker.connectionExists(1, 1), "one shard only");
        } finally {
            if (subscriber.isConnected()) subscriber.disconnect();
            subscriber.close();
            Clients.disconnect(publisher);
        }
    }
}
