package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client id connected on one shard connects again on the other: the first connection is closed
 * ([MQTT-3.1.4-3]; MQTT 5 sends it DISCONNECT 0x8E Session taken over first, 4.13), its will is
 * published (it did not send DISCONNECT: 3.1.2.5), and the new connection gets the session with
 * Clean Start 0 (Session Present 1 [MQTT-3.2.2-2], the subscriptions with it).
 */
@Timeout(60)
class CrossShardTakeoverIT {
    private static final int SESSION_TAKEN_OVER = 0x8E;
    private static final long SECONDS = 5;
    private static final Duration ARRIVAL = Duration.ofSeconds(5);
    private static final Duration QUIET = Duration.ofMillis(300);

    @RegisterExtension
    static final MeshBroker broker = MeshBroker.withShards(2);

    /** A Paho MQTT 5 client recording what it receives and the reason code of a server DISCONNECT. */
    private static org.eclipse.paho.mqttv5.client.MqttClient paho5(String clientId, Received into,
                                                                   CompletableFuture<Integer> disconnectReason) throws Exception {
        var client = new org.eclipse.paho.mqttv5.client.MqttClient(broker.uri(), clientId,
                new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
        client.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
            @Override public void disconnected(MqttDisconnectResponse response) { disconnectReason.complete(response.getReturnCode()); }
            @Override public void mqttErrorOccurred(MqttException exception) {}
            @Override public void messageArrived(String topic, org.eclipse.paho.mqttv5.common.MqttMessage message) {
                into.add(message.getPayload());
            }
            @Override public void deliveryComplete(IMqttToken token) {}
            @Override public void connectComplete(boolean reconnect, String serverUri) {}
            @Override public void authPacketArrived(int reasonCode, MqttProperties properties) {}
        });
        return client;
    }

    private static MqttConnectionOptions persistent5() {
        var options = new MqttConnectionOptions();
        options.setCleanStart(false);
        options.setSessionExpiryInterval(300L);
        return options;
    }

    private static Mqtt5AsyncClient watcher(int shard, String topic, Received into) throws Exception {
        var client = Clients.v5(broker, shard, Clients.id("watcher"));
        Clients.subscribe(client, topic, MqttQos.AT_LEAST_ONCE, into);
        return client;
    }

    @Test
    void mqtt5TakeoverFromTheOtherShardDisconnectsTheFirstWith0x8EPublishesItsWillAndMovesTheSession() throws Exception {
        var clientId = Clients.id("x5");
        var topic = "takeover/v5/" + clientId;
        var willTopic = "will/v5/" + clientId;
        var wills = new Received();
        var watcher = watcher(1, willTopic, wills);

        var firstReceived = new Received();
        var firstDisconnect = new CompletableFuture<Integer>();
        var first = paho5(clientId, firstReceived, firstDisconnect);
        var firstOptions = persistent5();
        var will = new org.eclipse.paho.mqttv5.common.MqttMessage(Received.payload("will", 0));
        will.setQos(1);
        firstOptions.setWill(willTopic, will);
        assertFalse(broker.on(0, () -> first.connectWithResult(firstOptions)).getSessionPresent());
        assertArrayEquals(new int[] {1}, first.subscribe(topic, 1).getGrantedQos());

        var secondReceived = new Received();
        var secondDisconnect = new CompletableFuture<Integer>();
        var second = paho5(clientId, secondReceived, secondDisconnect);
        var publisher = (Mqtt5AsyncClient) null;
        try {
            var connAck = broker.on(1, () -> second.connectWithResult(persistent5()));
            assertTrue(connAck.getSessionPresent(), "the session came from shard 0: Session Present 1");

            assertEquals(SESSION_TAKEN_OVER, firstDisconnect.get(SECONDS, TimeUnit.SECONDS), "DISCONNECT reason code");
            wills.awaitAtLeast(1, ARRIVAL);
            assertEquals(List.of(0), wills.sequencesFrom("will"), "the first connection's will");

            publisher = Clients.v5(broker, 0, Clients.id("pub"));
            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "moved", 10));
            secondReceived.awaitAtLeast(10, ARRIVAL);
            // A round trip of its own on shard 1.
            assertArrayEquals(new int[] {1}, second.subscribe(topic + "/own", 1).getGrantedQos());
            second.publish(topic + "/own", Received.payload("own", 0), 1, false);
            secondReceived.awaitAtLeast(11, ARRIVAL);
            Never.within(QUIET, "a message more, one to the closed connection, or the new one's end",
                    () -> secondReceived.size() > 11 || firstReceived.size() > 0 || secondDisconnect.isDone());
            assertEquals("", Received.exactlyOnceInOrder(secondReceived.sequencesFrom("moved"), 10), "the moved subscription");
            assertEquals(List.of(0), secondReceived.sequencesFrom("own"));
            assertEquals(0, firstReceived.size(), "nothing reaches the closed connection");
            assertFalse(first.isConnected());
            assertFalse(secondDisconnect.isDone(), "the new connection stays");
        } finally {
            if (second.isConnected()) second.disconnect();
            second.close();
            first.close(true);
            Clients.disconnect(publisher, watcher);
        }
    }

    @Test
    void mqtt311TakeoverFromTheOtherShardClosesTheFirstPublishesItsWillAndMovesTheSession() throws Exception {
        var clientId = Clients.id("x311");
        var topic = "takeover/v3/" + clientId;
        var willTopic = "will/v3/" + clientId;
        var wills = new Received();
        var watcher = watcher(0, willTopic, wills);

        var firstLost = new CompletableFuture<Throwable>();
        var firstReceived = new Received();
        var first = paho311(clientId, firstReceived, firstLost);
        var firstOptions = persistent311();
        firstOptions.setWill(willTopic, Received.payload("will", 0), 1, false);
        assertFalse(broker.on(1, () -> first.connectWithResult(firstOptions)).getSessionPresent());
        assertArrayEquals(new int[] {1}, first.subscribeWithResponse(topic, 1).getGrantedQos());

        var secondReceived = new Received();
        var secondLost = new CompletableFuture<Throwable>();
        var second = paho311(clientId, secondReceived, secondLost);
        var publisher = (Mqtt5AsyncClient) null;
        try {
            var connAck = broker.on(0, () -> second.connectWithResult(persistent311()));
            assertTrue(connAck.getSessionPresent(), "the session came from shard 1: Session Present 1");
            firstLost.get(SECONDS, TimeUnit.SECONDS);  // [MQTT-3.1.4-2] the existing client is disconnected
            wills.awaitAtLeast(1, ARRIVAL);
            assertEquals(List.of(0), wills.sequencesFrom("will"), "the first connection's will");

            publisher = Clients.v5(broker, 1, Clients.id("pub"));
            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "moved", 10));
            secondReceived.awaitAtLeast(10, ARRIVAL);
            second.publish(topic, Received.payload("own", 0), 1, false);
            secondReceived.awaitAtLeast(11, ARRIVAL);
            Never.within(QUIET, "a message more, one to the closed connection, or the new one's end",
                    () -> secondReceived.size() > 11 || firstReceived.size() > 0 || secondLost.isDone());
            assertEquals("", Received.exactlyOnceInOrder(secondReceived.sequencesFrom("moved"), 10), "the moved subscription");
            assertEquals(List.of(0), secondReceived.sequencesFrom("own"));
            assertEquals(0, firstReceived.size(), "nothing reaches the closed connection");
            assertFalse(secondLost.isDone(), "the new connection stays");
        } finally {
            if (second.isConnected()) second.disconnect();
            second.close();
            first.close(true);
            Clients.disconnect(publisher, watcher);
        }
    }

    private static MqttClient paho311(String clientId, Received into, CompletableFuture<Throwable> lost) throws Exception {
        var client = new MqttClient(broker.uri(), clientId, new MemoryPersistence());
        client.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) { lost.complete(cause); }
            @Override public void messageArrived(String topic, MqttMessage message) { into.add(message.getPayload()); }
            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        return client;
    }

    private static MqttConnectOptions persistent311() {
        var options = new MqttConnectOptions();
        options.setCleanSession(false);
        return options;
    }

}
