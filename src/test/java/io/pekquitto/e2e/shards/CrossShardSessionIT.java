package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Eventually;
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
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A persistent session left offline on one shard and resumed on the other: the session (its
 * subscriptions and the QoS 1 messages queued meanwhile) moves with the client ([MQTT-3.1.2-4],
 * [MQTT-3.1.2-5], Session Present [MQTT-3.2.2-2]); a clean start there discards it ([MQTT-3.1.2-6],
 * Session Present 0 [MQTT-3.2.2-1]).
 */
@Timeout(60)
class CrossShardSessionIT {
    private static final int QUEUED = 100;
    private static final Duration ARRIVAL = Duration.ofSeconds(10);
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final long SESSION_EXPIRY = 300;
    /** In the flowing test, the subscriber sends DISCONNECT from its callback after this many messages. */
    private static final int LEAVE_AFTER = 500;

    @RegisterExtension
    static final MeshBroker broker = MeshBroker.withShards(2);

    // ---- Paho 3.1.1

    private static MqttClient paho311(String clientId, Received into) throws Exception {
        var client = new MqttClient(broker.uri(), clientId, new MemoryPersistence());
        client.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) {}
            @Override public void messageArrived(String topic, MqttMessage message) { into.add(message.getPayload()); }
            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        return client;
    }

    private static MqttConnectOptions cleanSession(boolean clean) {
        var options = new MqttConnectOptions();
        options.setCleanSession(clean);
        return options;
    }

    // ---- Paho 5

    private static org.eclipse.paho.mqttv5.client.MqttClient paho5(String clientId, Received into) throws Exception {
        var client = new org.eclipse.paho.mqttv5.client.MqttClient(broker.uri(), clientId,
                new org.eclipse.paho.mqttv5.client.persist.MemoryPersistence());
        client.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
            @Override public void disconnected(MqttDisconnectResponse response) {}
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

    private static MqttConnectionOptions cleanStart(boolean clean, long sessionExpiry) {
        var options = new MqttConnectionOptions();
        options.setCleanStart(clean);
        options.setSessionExpiryInterval(sessionExpiry);
        return options;
    }

    private static Mqtt5AsyncClient publisher(int shard) throws Exception {
        return Clients.v5(broker, shard, Clients.id("pub"));
    }

    @Test
    void mqtt311SessionResumedOnTheOtherShardHasItsQueueInOrderOnceAndItsSubscription() throws Exception {
        var clientId = Clients.id("persistent311");
        var topic = "session/v3/" + clientId;
        var before = new Received();
        var first = paho311(clientId, before);
        var started = broker.on(0, () -> first.connectWithResult(cleanSession(false)));
        assertFalse(started.getSessionPresent(), "a new session");
        assertArrayEquals(new int[] {1}, first.subscribeWithResponse(topic, 1).getGrantedQos());
        int firstConnection = broker.lastConnectionOn(0);
        first.disconnect();
        first.close();
        broker.awaitConnectionGone(0, firstConnection);

        var publisher = publisher(1);
        Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", QUEUED));

        var after = new Received();
        var second = paho311(clientId, after);
        try {
            var resumed = broker.on(1, () -> second.connectWithResult(cleanSession(false)));
            assertTrue(resumed.getSessionPresent(), "Session Present 1 [MQTT-3.2.2-2]");
            after.awaitAtLeast(QUEUED, ARRIVAL);
            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", QUEUED, 2 * QUEUED));
            after.awaitAtLeast(2 * QUEUED, ARRIVAL);
            Never.within(QUIET, "a message more, or one to the old connection", () -> after.size() > 2 * QUEUED || before.size() > 0);
            assertEquals("", Received.exactlyOnceInOrder(after.sequencesFrom("p"), 2 * QUEUED), "queued, then new");
            assertEquals(0, before.size());
        } finally {
            if (second.isConnected()) second.disconnect();
            second.close();
            Clients.disconnect(publisher);
        }
    }

    @Test
    void mqtt5SessionResumedOnTheOtherShardHasItsQueueInOrderOnceAndItsSubscription() throws Exception {
        var clientId = Clients.id("persistent5");
        var topic = "session/v5/" + clientId;
        var before = new Received();
        var first = paho5(clientId, before);
        var started = broker.on(0, () -> first.connectWithResult(cleanStart(false, SESSION_EXPIRY)));
        assertFalse(started.getSessionPresent(), "a new session");
        assertArrayEquals(new int[] {1}, first.subscribe(topic, 1).getGrantedQos());
        int firstConnection = broker.lastConnectionOn(0);
        first.disconnect();
        first.close();
        broker.awaitConnectionGone(0, firstConnection);

        var publisher = publisher(0);
        Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", QUEUED));

        var after = new Received();
        var second = paho5(clientId, after);
        try {
            var resumed = broker.on(1, () -> second.connectWithResult(cleanStart(false, SESSION_EXPIRY)));
            assertTrue(resumed.getSessionPresent(), "Session Present 1 [MQTT-3.2.2-2]");
            after.awaitAtLeast(QUEUED, ARRIVAL);
            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", QUEUED, 2 * QUEUED));
            after.awaitAtLeast(2 * QUEUED, ARRIVAL);
            Never.within(QUIET, "a message more, or one to the old connection", () -> after.size() > 2 * QUEUED || before.size() > 0);
            assertEquals("", Received.exactlyOnceInOrder(after.sequencesFrom("p"), 2 * QUEUED), "queued, then new");
            assertEquals(0, before.size());
        } finally {
            if (second.isConnected()) second.disconnect();
            second.close();
            Clients.disconnect(publisher);
        }
    }

    @Test
    void cleanStartOnTheOtherShardFindsNoSessionNoSubscriptionAndNoQueue() throws Exception {
        var clientId = Clients.id("cleaned");
        var oldTopic = "session/clean/" + clientId + "/old";
        var newTopic = "session/clean/" + clientId + "/new";
        var before = new Received();
        var first = paho5(clientId, before);
        broker.on(0, () -> first.connectWithResult(cleanStart(false, SESSION_EXPIRY)));
        assertArrayEquals(new int[] {1}, first.subscribe(oldTopic, 1).getGrantedQos());
        int firstConnection = broker.lastConnectionOn(0);
        first.disconnect();
        first.close();
        broker.awaitConnectionGone(0, firstConnection);
        var publisher = publisher(0);
        Clients.await(Clients.publishAll(publisher, oldTopic, MqttQos.AT_LEAST_ONCE, "queued", 10));

        var after = new Received();
        var second = paho5(clientId, after);
        try {
            var fresh = broker.on(1, () -> second.connectWithResult(cleanStart(true, SESSION_EXPIRY)));
            assertFalse(fresh.getSessionPresent(), "Session Present 0 [MQTT-3.2.2-1]");
            assertArrayEquals(new int[] {1}, second.subscribe(newTopic, 1).getGrantedQos());
            Clients.await(Clients.publishAll(publisher, oldTopic, MqttQos.AT_LEAST_ONCE, "old", 10));
            Clients.await(Clients.publishAll(publisher, newTopic, MqttQos.AT_LEAST_ONCE, "new", 10));
            after.awaitAtLeast(10, ARRIVAL);
            assertEquals(List.of(), after.sequencesFrom("queued"), "the old session's queue was discarded");
            Never.within(QUIET, "a message more, or one to the old connection", () -> after.size() > 10 || before.size() > 0);
            var all = after.all();
            assertEquals(List.of(), after.sequencesFrom("old"), "the old session's subscription was discarded");
            assertEquals("", Received.exactlyOnceInOrder(after.sequencesFrom("new"), 10), all.toString());
            assertEquals(0, before.size());
        } finally {
            if (second.isConnected()) second.disconnect();
            second.close();
            Clients.disconnect(publisher);
        }
    }

    /**
     * The client disconnects normally while a publisher on the other shard is sending: its session
     * stays (expiry 300 s), so what it did not receive is queued (the in-flight ones resent,
     * [MQTT-4.4.0-1]) and it gets every message, at least once, when it comes back on that other shard.
     */
    @Test
    void disconnectingWhileMessagesFlowLosesNoneForAPersistentSession(TestReporter reporter) throws Exception {
        int messages = 10_000;
        var clientId = Clients.id("flowing");
        var topic = "session/flowing/" + clientId;
        var received = new Received();
        var first = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(broker.port()).buildAsync();
        var left = new CompletableFuture<Integer>();
        first.publishes(MqttGlobalPublishFilter.ALL, publish -> {
            received.add(publish.getPayloadAsBytes());
            if (received.size() == LEAVE_AFTER) first.disconnect().whenComplete((ok, error) -> left.complete(received.size()));
        });
        broker.on(0, () -> first.connectWith().cleanStart(true).sessionExpiryInterval(SESSION_EXPIRY).send()
                .get(Clients.CONNECT_SECONDS, TimeUnit.SECONDS));
        first.subscribeWith().topicFilter(topic).qos(MqttQos.AT_LEAST_ONCE).send().get(Clients.CONNECT_SECONDS, TimeUnit.SECONDS);
        var publisher = publisher(1);
        CompletableFuture<Void> sent;
        Mqtt5AsyncClient second = null;
        try {
            sent = Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", messages);
            Clients.await(sent);
            int beforeLeaving = left.get(Clients.CONNECT_SECONDS, TimeUnit.SECONDS);

            second = com.hivemq.client.mqtt.MqttClient.builder().useMqttVersion5().identifier(clientId)
                    .serverHost("127.0.0.1").serverPort(broker.port()).buildAsync();
            second.publishes(MqttGlobalPublishFilter.ALL, publish -> received.add(publish.getPayloadAsBytes()));
            var client = second;
            var resumed = broker.on(1, () -> client.connectWith().cleanStart(false).sessionExpiryInterval(0).send()
                    .get(Clients.CONNECT_SECONDS, TimeUnit.SECONDS));
            assertTrue(resumed.isSessionPresent(), "Session Present 1");
            Eventually.await(ARRIVAL, () -> "every message; lost " + Received.missing(Received.counts(received.sequencesFrom("p")),
                    messages).stream().limit(20).toList() + "; broker dead letters " + broker.deadLetters(),
                    () -> Received.missing(Received.counts(received.sequencesFrom("p")), messages).isEmpty());
            var counts = Received.counts(received.sequencesFrom("p"));
            var missing = Received.missing(counts, messages);
            reporter.publishEntry("received before disconnecting", String.valueOf(beforeLeaving));
            reporter.publishEntry("delivered twice (at least once allows it)", String.valueOf(Received.duplicated(counts).size()));
            assertTrue(beforeLeaving < messages / 2, "it left while messages flowed: " + beforeLeaving);
            assertEquals(List.of(), missing.stream().limit(20).toList(),
                    missing.size() + " lost; broker dead letters " + broker.deadLetters());
        } finally {
            Clients.disconnect(second, publisher);
        }
    }
}
