package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failures stay where they happen (docs/architecture.md, Supervision): a connection actor that throws takes only
 * its client down; a shard that throws is restarted by its supervisor, its clients are disconnected,
 * the other shard keeps serving, and the restarted shard serves new connections and rejoins the mesh.
 * One broker per test: each test breaks it.
 */
@Timeout(60)
class SupervisionIT {
    private static final long SECONDS = 5;
    private static final Duration ARRIVAL = Duration.ofSeconds(10);
    private static final Duration QUIET = Duration.ofMillis(300);
    private static final int MESSAGES = 100;

    @RegisterExtension
    final MeshBroker broker = MeshBroker.withShards(2);
    private final List<Mqtt5AsyncClient> clients = new ArrayList<>();
    private final List<MqttClient> pahoClients = new ArrayList<>();

    @AfterEach
    void disconnectClients() throws Exception {
        Clients.disconnect(clients, pahoClients);
    }

    private Mqtt5AsyncClient v5(int shard, String role) throws Exception {
        var client = Clients.v5(broker, shard, Clients.id(role));
        clients.add(client);
        return client;
    }

    /** A Paho 3.1.1 client on {@code shard} whose connectionLost completes {@code lost}. */
    private MqttClient paho311(int shard, CompletableFuture<Throwable> lost) throws Exception {
        var client = new MqttClient(broker.uri(), Clients.id("paho"), new MemoryPersistence());
        pahoClients.add(client);
        client.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) { lost.complete(cause); }
            @Override public void messageArrived(String topic, MqttMessage message) {}
            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        var options = new MqttConnectOptions();
        options.setCleanSession(true);
        broker.on(shard, () -> client.connectWithResult(options));
        return client;
    }

    private static void awaitDisconnected(Mqtt5AsyncClient client) {
        Eventually.await(Duration.ofSeconds(SECONDS), "the client to be disconnected", () -> !client.getState().isConnected());
    }

    /**
     * {@code publisher} sends {@code source:0..MESSAGES-1} at QoS 1 and {@code received} gets them all, once, in order.
     * It waits for the messages of {@code source}: {@code received} may hold those of an earlier round trip.
     */
    private static void roundTrip(Mqtt5AsyncClient publisher, String topic, String source, Received received) throws Exception {
        Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, source, MESSAGES));
        Eventually.await(ARRIVAL, () -> MESSAGES + " messages from " + source + "; " + received.sequencesFrom(source).size(),
                () -> received.sequencesFrom(source).size() >= MESSAGES);
        Never.within(QUIET, "a message more from " + source, () -> received.sequencesFrom(source).size() > MESSAGES);
        assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom(source), MESSAGES), topic);
    }

    @Test
    void aFailingConnectionDisconnectsOnlyItsClient() throws Exception {
        var lost = new CompletableFuture<Throwable>();
        var victim = paho311(0, lost);
        int victimConnection = broker.lastConnectionOn(0);
        var survivor = v5(0, "survivor");
        var peer = v5(1, "peer");
        var received = new Received();
        Clients.subscribe(survivor, "supervision/survivor", MqttQos.AT_LEAST_ONCE, received);

        broker.failConnection(0, victimConnection);

        lost.get(SECONDS, TimeUnit.SECONDS);
        broker.awaitConnectionGone(0, victimConnection);
        roundTrip(survivor, "supervision/survivor", "self", received);  // through its own shard
        roundTrip(peer, "supervision/survivor", "peer", received);      // and across the mesh
        assertTrue(survivor.getState().isConnected());
        assertTrue(!victim.isConnected());
    }

    @Test
    void aFailingShardDisconnectsItsClientsOnlyAndServesNewOnesAfterItsRestart() throws Exception {
        var zeroA = v5(0, "zero-a");
        var lost = new CompletableFuture<Throwable>();
        paho311(1, lost);
        var zeroB = v5(0, "zero-b");
        var oneB = v5(1, "one-b");
        var beforeFailure = new Received();
        Clients.subscribe(zeroB, "supervision/before", MqttQos.AT_LEAST_ONCE, beforeFailure);

        broker.failShard(1);

        lost.get(SECONDS, TimeUnit.SECONDS);
        awaitDisconnected(oneB);
        assertTrue(zeroA.getState().isConnected() && zeroB.getState().isConnected(), "shard 0's clients stay");
        var onZero = new Received();
        Clients.subscribe(zeroB, "supervision/zero", MqttQos.AT_LEAST_ONCE, onZero);
        roundTrip(zeroA, "supervision/zero", "zero", onZero);

        // New connections on the restarted shard 1, both ways across the mesh.
        var newOne = v5(1, "new-one");
        var onNewOne = new Received();
        Clients.subscribe(newOne, "supervision/to-one", MqttQos.AT_LEAST_ONCE, onNewOne);
        roundTrip(zeroA, "supervision/to-one", "from-zero", onNewOne);
        var toZero = new Received();
        Clients.subscribe(zeroB, "supervision/to-zero", MqttQos.AT_LEAST_ONCE, toZero);
        roundTrip(newOne, "supervision/to-zero", "from-one", toZero);
        // A subscription made on shard 0 before the failure: the restarted shard learnt of it again.
        roundTrip(newOne, "supervision/before", "after-restart", beforeFailure);
        assertEquals(MESSAGES, beforeFailure.size());
    }

}
