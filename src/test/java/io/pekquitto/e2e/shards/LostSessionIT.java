package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A shard that fails forgets the sessions it held, but the store keeps them: a persistent client that
 * comes back after the shard's restart resumes its session, with the messages queued for it before.
 */
@Timeout(60)
class LostSessionIT {
    private static final int MESSAGES = 100;

    @RegisterExtension
    final MeshBroker broker = MeshBroker.withShardsAndStore(2);
    private final List<Mqtt5AsyncClient> clients = new ArrayList<>();

    @AfterEach
    void disconnectClients() {
        Clients.disconnect(clients.toArray(new Mqtt5AsyncClient[0]));
    }

    /** A client with a persistent session (Clean Start 0, an hour's expiry) on {@code shard}, its messages into {@code received}. */
    private Mqtt5AsyncClient persistent(String clientId, int shard, Received received, boolean[] sessionPresent) throws Exception {
        var client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(broker.port()).buildAsync();
        client.publishes(MqttGlobalPublishFilter.ALL, publish -> received.add(publish.getPayloadAsBytes()));
        var connAck = broker.on(shard, () -> client.connectWith().cleanStart(false).sessionExpiryInterval(3600).send()
                .get(10, TimeUnit.SECONDS));
        sessionPresent[0] = connAck.isSessionPresent();
        clients.add(client);
        return client;
    }

    @Test
    void aPersistentSessionOfAFailedShardComesBackFromTheStore() throws Exception {
        var subscriberId = Clients.id("lost");
        var received = new Received();
        var present = new boolean[1];
        var subscriber = persistent(subscriberId, 1, received, present);
        subscriber.subscribeWith().topicFilter("lost/queue").qos(MqttQos.AT_LEAST_ONCE).send().get(10, TimeUnit.SECONDS);
        subscriber.disconnect().get(10, TimeUnit.SECONDS);
        clients.remove(subscriber);

        var publisher = Clients.v5(broker, 0, Clients.id("publisher"));
        clients.add(publisher);
        Clients.await(Clients.publishAll(publisher, "lost/queue", MqttQos.AT_LEAST_ONCE, "before", MESSAGES));
        var bystander = Clients.v5(broker, 1, Clients.id("bystander"));  // failShard wants a connection to see go
        clients.add(bystander);

        broker.failShard(1);

        persistent(subscriberId, 1, received, present);
        assertTrue(present[0], "session present: it came back from the store");
        received.awaitAtLeast(MESSAGES, Duration.ofSeconds(10));
        Never.within(Duration.ofMillis(300), "a message more", () -> received.sequencesFrom("before").size() > MESSAGES);
        assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("before"), MESSAGES));
        // Its subscription came back too: a message published now reaches it.
        Clients.await(Clients.publishAll(publisher, "lost/queue", MqttQos.AT_LEAST_ONCE, "after", MESSAGES));
        received.awaitAtLeast(2 * MESSAGES, Duration.ofSeconds(10));
        assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("after"), MESSAGES));
    }
}
