package io.pekquitto.e2e.retain;

import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Retained messages (3.3.1.3). Statement numbers differ between the versions: 3.1.1 [MQTT-3.3.1-5]
 * store, [-6] send on subscribe, [-8] RETAIN 1 on that send, [-9] RETAIN 0 on live delivery, [-10]
 * [-11] empty payload clears, [-12] RETAIN 0 leaves the retained message; 5.0 [MQTT-3.3.1-5] replace
 * and store, [-6] [-7] empty payload clears, [-8] RETAIN 0 leaves it, [-9] Retain Handling 0 sends,
 * [-12] [-13] Retain As Published. The expiry of a retained message is a timer: ShardTimersTest checks
 * it under a manual clock.
 */
class RetainIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a retained message is sent to a new subscriber with RETAIN 1 [MQTT-3.3.1-6] [MQTT-3.3.1-8] (3.1.1) [MQTT-3.3.1-5] [MQTT-3.3.1-9] (5.0)")
    void retainedMessageIsReplayedWithRetainFlag(int version) throws Exception {
        String topic = Names.topic("replay");
        var publisher = broker.publishers().get(version);
        publisher.publish(topic, "kept", 1, true);
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            subscriber.subscribe(topic, 1);
            var message = subscriber.inbox().next();
            assertEquals(topic, message.topic());
            assertEquals("kept", message.text());
            assertTrue(message.retained(), "RETAIN 1 on a message sent because of a new subscription");
            assertEquals(1, message.qos());
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a new retained message replaces the old one [MQTT-3.3.1-5] (3.1.1, 5.0)")
    void newRetainedMessageReplacesTheOld(int version) throws Exception {
        String topic = Names.topic("replace");
        var publisher = broker.publishers().get(version);
        publisher.publish(topic, "old", 1, true);
        publisher.publish(topic, "new", 2, true);
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            subscriber.subscribe(topic, 1);
            var message = subscriber.inbox().next();
            assertEquals("new", message.text());
            assertEquals(1, message.qos(), "QoS 2 retained, subscribed at QoS 1");
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a non-retained message neither stores nor removes the retained one [MQTT-3.3.1-12] (3.1.1) [MQTT-3.3.1-8] (5.0)")
    void nonRetainedMessageLeavesTheRetainedOne(int version) throws Exception {
        String topic = Names.topic("keep");
        var publisher = broker.publishers().get(version);
        publisher.publish(topic, "retained", 1, true);
        publisher.publish(topic, "passing", 1, false);
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            subscriber.subscribe(topic, 1);
            assertEquals("retained", subscriber.inbox().next().text());
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a retained message with an empty payload clears the retained message and is not stored [MQTT-3.3.1-10] [MQTT-3.3.1-11] (3.1.1) [MQTT-3.3.1-6] [MQTT-3.3.1-7] (5.0)")
    void emptyRetainedPayloadClears(int version) throws Exception {
        String topic = Names.topic("clear");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            var publisher = broker.publishers().get(version);
            watcher.subscribe(topic, 1);
            publisher.publish(topic, "soon gone", 1, true);
            publisher.publish(topic, new byte[0], 1, true);
            // The empty message is "processed normally": existing subscribers get it.
            assertEquals("soon gone", watcher.inbox().next().text());
            assertEquals(0, watcher.inbox().next().payload().length);
        }
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            subscriber.subscribe(topic, 1);
            // Retained messages are sent right after the SUBACK; a later live message marks their end.
            publisher.publish(topic, "marker", 1, false);
            var first = subscriber.inbox().next();
            assertEquals("marker", first.text(), "expected no retained message, got " + first);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a wildcard subscription receives every matching retained message, each with RETAIN 1 [MQTT-3.3.1-6] (3.1.1) [MQTT-3.3.1-9] (5.0)")
    void wildcardSubscriptionReceivesAllMatchingRetained(int version) throws Exception {
        String root = Names.topic("many");
        var retained = Map.of(root + "/a", "A", root + "/b/c", "BC", root + "/d", "D");
        var publisher = broker.publishers().get(version);
        for (var entry : retained.entrySet()) publisher.publish(entry.getKey(), entry.getValue(), 1, true);
        publisher.publish(root + "/e", "not retained", 1, false);
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            subscriber.subscribe(root + "/#", 1);
            var received = new TreeMap<String, String>();
            for (var message : subscriber.inbox().next(retained.size(), Duration.ofSeconds(5))) {
                assertTrue(message.retained(), "RETAIN 1 on " + message);
                received.put(message.topic(), message.text());
            }
            assertEquals(new TreeMap<>(retained), received);
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a retained message delivered live to an existing subscription has RETAIN 0 [MQTT-3.3.1-9] (3.1.1) [MQTT-3.3.1-12] (5.0)")
    void liveDeliveryHasRetainZero(int version) throws Exception {
        String topic = Names.topic("live");
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            subscriber.subscribe(topic, 1);
            publisher.publish(topic, "live", 1, true);
            var message = subscriber.inbox().next();
            assertEquals("live", message.text());
            assertFalse(message.retained(), "RETAIN 0 on a message for an established subscription");
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("subscribing again to the same filter re-sends the retained messages [MQTT-3.8.4-3 (3.1.1)] [MQTT-3.8.4-4 (5.0)]")
    void resubscribingResendsRetained(int version) throws Exception {
        String topic = Names.topic("resubscribe");
        var publisher = broker.publishers().get(version);
        publisher.publish(topic, "again", 1, true);
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            subscriber.subscribe(topic, 1);
            assertEquals("again", subscriber.inbox().next().text());
            subscriber.subscribe(topic, 1);
            var resent = subscriber.inbox().next();
            assertEquals("again", resent.text());
            assertTrue(resent.retained());
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: Retain Handling 1 sends retained messages only for a new subscription, 2 never [MQTT-3.3.1-10] [MQTT-3.3.1-11]")
    void retainHandling() throws Exception {
        String topic = Names.topic("handling");
        var publisher = broker.publishers().v5();
        publisher.publish(topic, "handled", 1, true);
        try (var subscriber = broker.v5(Names.clientId("sub"));
             var never = broker.v5(Names.clientId("never"))) {
            var ifNew = new MqttSubscription(topic, 1);
            ifNew.setRetainHandling(1);
            subscriber.subscribe(ifNew);
            assertEquals("handled", subscriber.inbox().next().text(), "new subscription: sent");
            subscriber.subscribe(ifNew);
            subscriber.inbox().expectNothing();   // the subscription existed: not sent

            var noRetained = new MqttSubscription(topic, 1);
            noRetained.setRetainHandling(2);
            never.subscribe(noRetained);
            never.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: with Retain As Published, a live retained message keeps RETAIN 1 [MQTT-3.3.1-13]")
    void retainAsPublishedKeepsTheFlag() throws Exception {
        String topic = Names.topic("rap");
        try (var subscriber = broker.v5(Names.clientId("sub"))) {
            var publisher = broker.publishers().v5();
            var subscription = new MqttSubscription(topic, 1);
            subscription.setRetainAsPublished(true);
            assertEquals(1, subscriber.subscribe(subscription));
            publisher.publish(topic, "as published", 1, true);
            publisher.publish(topic, "plain", 1, false);
            var retainedOne = subscriber.inbox().next();
            assertEquals("as published", retainedOne.text());
            assertTrue(retainedOne.retained());
            var plainOne = subscriber.inbox().next();
            assertEquals("plain", plainOne.text());
            assertFalse(plainOne.retained());
        }
    }
}
