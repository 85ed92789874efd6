package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SubscribeRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retained messages (3.3.1.3): stored, replaced, cleared, and sent to new subscriptions by Retain Handling. */
class RetainedMessagesTest {
    private static final long NOW = 1_000_000_000_000L;

    private final RetainedMessages retained = new RetainedMessages(true);

    private static Message retainedMessage(String topic, String payload, QoS qos) {
        return Message.received(topic, Binary.utf8(payload), qos, true, Properties.NONE, NOW);
    }

    private static SubscribeRequest request(String filter, QoS qos, int retainHandling, int identifier) {
        return new SubscribeRequest(filter, new SubscriptionOptions(qos, false, false, retainHandling), identifier);
    }

    private List<String> payloads(SubscribeRequest request, boolean isNew) {
        return retained.forSubscription(request, isNew, NOW).stream().map(m -> m.payload().asUtf8()).sorted().toList();
    }

    @Test
    void aNewRetainedMessageReplacesTheTopicsPreviousOne() {  // [MQTT-3.3.1-5]
        retained.retain(retainedMessage("a", "old", QoS.AT_MOST_ONCE));
        retained.retain(retainedMessage("a", "new", QoS.AT_MOST_ONCE));
        assertEquals(List.of("new"), payloads(request("a", QoS.AT_MOST_ONCE, 0, 0), true));
        assertEquals(1, retained.size());
    }

    @Test
    void anEmptyPayloadClearsTheTopicAndIsNotStored() {  // [MQTT-3.3.1-6] [MQTT-3.3.1-7]
        retained.retain(retainedMessage("a", "x", QoS.AT_MOST_ONCE));
        retained.retain(Message.received("a", Binary.EMPTY, QoS.AT_MOST_ONCE, true, Properties.NONE, NOW));
        assertEquals(0, retained.size());
        assertEquals(List.of(), payloads(request("#", QoS.AT_MOST_ONCE, 0, 0), true));
    }

    @Test
    void aMessageWithoutRetainIsNotStored() {  // [MQTT-3.3.1-8]
        retained.retain(Message.received("a", Binary.utf8("x"), QoS.AT_MOST_ONCE, false, Properties.NONE, NOW));
        assertEquals(0, retained.size());
    }

    @Test
    void retainHandlingDecidesWhetherASubscriptionGetsThem() {  // [MQTT-3.3.1-9] [MQTT-3.3.1-10] [MQTT-3.3.1-11]
        retained.retain(retainedMessage("a/b", "x", QoS.AT_MOST_ONCE));
        assertEquals(List.of("x"), payloads(request("a/#", QoS.AT_MOST_ONCE, 0, 0), false), "0: always");
        assertEquals(List.of("x"), payloads(request("a/#", QoS.AT_MOST_ONCE, 1, 0), true), "1: a new subscription");
        assertEquals(List.of(), payloads(request("a/#", QoS.AT_MOST_ONCE, 1, 0), false), "1: not an existing one");
        assertEquals(List.of(), payloads(request("a/#", QoS.AT_MOST_ONCE, 2, 0), true), "2: never");
    }

    @Test
    void aSharedSubscriptionGetsNoRetainedMessages() {  // 4.8.2
        retained.retain(retainedMessage("a/b", "x", QoS.AT_MOST_ONCE));
        assertEquals(List.of(), payloads(request("$share/g/a/#", QoS.AT_MOST_ONCE, 0, 0), true));
    }

    @Test
    void theyAreSentWithRetainTheLowerQosAndTheSubscriptionIdentifier() {  // 3.3.1.3, [MQTT-3.8.4-8]
        retained.retain(retainedMessage("a/b", "x", QoS.EXACTLY_ONCE));
        var sent = retained.forSubscription(request("a/+", QoS.AT_LEAST_ONCE, 0, 9), true, NOW).get(0);
        assertTrue(sent.retain());
        assertEquals(QoS.AT_LEAST_ONCE, sent.qos());
        assertEquals(List.of(9), sent.properties().subscriptionIdentifiers());
    }

    @Test
    void anExpiredRetainedMessageIsDroppedInsteadOfSent() {  // [MQTT-3.3.2-5]
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 5L).build();
        retained.retain(Message.received("a", Binary.utf8("x"), QoS.AT_MOST_ONCE, true, properties, NOW));
        assertEquals(1, retained.forSubscription(request("a", QoS.AT_MOST_ONCE, 0, 0), true, NOW + 4_000_000_000L).size());
        assertEquals(List.of(), retained.forSubscription(request("a", QoS.AT_MOST_ONCE, 0, 0), true, NOW + 5_000_000_000L));
        assertEquals(0, retained.size(), "and removed");
    }

    @Test
    void nothingIsStoredWhenRetainIsNotAvailable() {  // retain-available = false
        var unavailable = new RetainedMessages(false);
        unavailable.retain(retainedMessage("a", "x", QoS.AT_MOST_ONCE));
        assertEquals(0, unavailable.size());
    }

    @Test
    void wildcardFiltersFindEveryMatchingRetainedTopicButNotDollarTopics() {  // [MQTT-4.7.2-1]
        retained.retain(retainedMessage("a/b", "1", QoS.AT_MOST_ONCE));
        retained.retain(retainedMessage("a/c/d", "2", QoS.AT_MOST_ONCE));
        retained.retain(retainedMessage("$SYS/x", "3", QoS.AT_MOST_ONCE));
        assertEquals(List.of("1", "2"), payloads(request("#", QoS.AT_MOST_ONCE, 0, 0), true));
        assertEquals(List.of("1"), payloads(request("a/+", QoS.AT_MOST_ONCE, 0, 0), true));
        assertEquals(List.of("3"), payloads(request("$SYS/#", QoS.AT_MOST_ONCE, 0, 0), true));
    }
}
