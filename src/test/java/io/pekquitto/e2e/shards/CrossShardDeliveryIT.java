package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import io.pekquitto.e2e.Never;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Publishes cross the mesh: a publisher on one shard, its subscriber on the other. QoS 1 messages
 * arrive at least once ([MQTT-4.3.2]) and here, with no connection lost, once; QoS 2 exactly once
 * ([MQTT-4.3.3]); and each publisher's messages in the order it sent them ([MQTT-4.6.0-6], Ordered Topic).
 */
@Timeout(60)
class CrossShardDeliveryIT {
    private static final int MESSAGES = 10_000;
    private static final int QOS2_MESSAGES = 1_000;
    private static final Duration ARRIVAL = Duration.ofSeconds(20);
    /** Time for a duplicate to show up after the last expected message. */
    private static final Duration QUIET = Duration.ofMillis(300);

    @RegisterExtension
    static final MeshBroker broker = MeshBroker.withShards(2);

    @Test
    void qos1FromShard1ReachesSubscriberOnShard0OnceEachInOrder() throws Exception {
        var topic = "delivery/one-to-zero";
        var received = new Received();
        Mqtt5AsyncClient subscriber = null;
        Mqtt5AsyncClient publisher = null;
        try {
            subscriber = Clients.v5(broker, 0, Clients.id("sub"));
            Clients.subscribe(subscriber, topic, MqttQos.AT_LEAST_ONCE, received);
            publisher = Clients.v5(broker, 1, Clients.id("pub"));

            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", MESSAGES));

            received.awaitAtLeast(MESSAGES, ARRIVAL);
            Never.within(QUIET, "a message more", () -> received.size() > MESSAGES);
            assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("p"), MESSAGES));
            assertEquals(MESSAGES, received.size());
        } finally {
            Clients.disconnect(subscriber, publisher);
        }
    }

    @Test
    void qos1FromShard0ReachesMqtt311SubscriberOnShard1OnceEachInOrder() throws Exception {
        var topic = "delivery/zero-to-one";
        var received = new Received();
        Mqtt3AsyncClient subscriber = null;
        Mqtt3AsyncClient publisher = null;
        try {
            subscriber = Clients.v3(broker, 1, Clients.id("sub"));
            Clients.subscribe(subscriber, "delivery/+", MqttQos.AT_LEAST_ONCE, received);
            publisher = Clients.v3(broker, 0, Clients.id("pub"));

            Clients.await(Clients.publishAll(publisher, topic, MqttQos.AT_LEAST_ONCE, "p", MESSAGES));

            received.awaitAtLeast(MESSAGES, ARRIVAL);
            Never.within(QUIET, "a message more", () -> received.size() > MESSAGES);
            assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("p"), MESSAGES));
            assertEquals(MESSAGES, received.size());
        } finally {
            Clients.disconnect(subscriber, publisher);
        }
    }

    @Test
    void publishersOnBothShardsKeepTheirOwnOrderAtOneSubscriber() throws Exception {
        var topic = "delivery/two-publishers";
        var received = new Received();
        Mqtt5AsyncClient subscriber = null;
        Mqtt5AsyncClient local = null;
        Mqtt5AsyncClient remote = null;
        try {
            subscriber = Clients.v5(broker, 0, Clients.id("sub"));
            Clients.subscribe(subscriber, topic, MqttQos.AT_LEAST_ONCE, received);
            local = Clients.v5(broker, 0, Clients.id("pub-local"));
            remote = Clients.v5(broker, 1, Clients.id("pub-remote"));

            var fromLocal = Clients.publishAll(local, topic, MqttQos.AT_LEAST_ONCE, "local", MESSAGES / 2);
            var fromRemote = Clients.publishAll(remote, topic, MqttQos.AT_LEAST_ONCE, "remote", MESSAGES / 2);
            Clients.await(fromLocal);
            Clients.await(fromRemote);

            received.awaitAtLeast(MESSAGES, ARRIVAL);
            Never.within(QUIET, "a message more", () -> received.size() > MESSAGES);
            assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("local"), MESSAGES / 2), "from shard 0");
            assertEquals("", Received.exactlyOnceInOrder(received.sequencesFrom("remote"), MESSAGES / 2), "from shard 1");
            assertEquals(MESSAGES, received.size());
        } finally {
            Clients.disconnect(subscriber, local, remote);
        }
    }

    @Test
    void qos2CrossesShardsExactlyOnceInOrderBothWays() throws Exception {
        var received0 = new Received();
        var received1 = new Received();
        Mqtt5AsyncClient subscriber0 = null;
        Mqtt5AsyncClient subscriber1 = null;
        Mqtt5AsyncClient publisher0 = null;
        Mqtt5AsyncClient publisher1 = null;
        try {
            subscriber0 = Clients.v5(broker, 0, Clients.id("sub"));
            Clients.subscribe(subscriber0, "delivery/qos2/to-zero", MqttQos.EXACTLY_ONCE, received0);
            subscriber1 = Clients.v5(broker, 1, Clients.id("sub"));
            Clients.subscribe(subscriber1, "delivery/qos2/to-one", MqttQos.EXACTLY_ONCE, received1);
            publisher0 = Clients.v5(broker, 0, Clients.id("pub"));
            publisher1 = Clients.v5(broker, 1, Clients.id("pub"));

            var toZero = Clients.publishAll(publisher1, "delivery/qos2/to-zero", MqttQos.EXACTLY_ONCE, "p1", QOS2_MESSAGES);
            var toOne = Clients.publishAll(publisher0, "delivery/qos2/to-one", MqttQos.EXACTLY_ONCE, "p0", QOS2_MESSAGES);
            Clients.await(toZero);
            Clients.await(toOne);

            received0.awaitAtLeast(QOS2_MESSAGES, ARRIVAL);
            received1.awaitAtLeast(QOS2_MESSAGES, ARRIVAL);
            Never.within(QUIET, "a message more", () -> received0.size() > QOS2_MESSAGES || received1.size() > QOS2_MESSAGES);
            assertEquals("", Received.exactlyOnceInOrder(received0.sequencesFrom("p1"), QOS2_MESSAGES), "shard 1 to 0");
            assertEquals("", Received.exactlyOnceInOrder(received1.sequencesFrom("p0"), QOS2_MESSAGES), "shard 0 to 1");
            assertEquals(QOS2_MESSAGES, received0.size());
            assertEquals(QOS2_MESSAGES, received1.size());
        } finally {
            Clients.disconnect(subscriber0, subscriber1, publisher0, publisher1);
        }
    }
}
