package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SubscribeRequest;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RetainedMessagesTest {
    private static final long NOW = 7_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final RetainedMessages retained = new RetainedMessages(true);

    private static Message publish(String topic, String payload, QoS qos, boolean retain) {
        return Message.received(topic, Binary.utf8(payload), qos, retain, Properties.NONE, NOW);
    }

    private static Message retainedMessage(String topic, String payload) {
        return publish(topic, payload, QoS.AT_LEAST_ONCE, true);
    }

    private static SubscribeRequest request(String filter, QoS qos, int retainHandling) {
        return new SubscribeRequest(filter, new SubscriptionOptions(qos, false, false, retainHandling), 0);
    }

    private List<Message> subscribe(String filter) {
        return retained.forSubscription(request(filter, QoS.EXACTLY_ONCE, 0), true, NOW);
    }

    private Set<String> payloadsFor(String filter) {
        return subscribe(filter).stream().map(m -> m.payload().asUtf8()).collect(Collectors.toSet());
    }

    @Test
    void aNewSubscriptionGetsTheRetainedMessageWithRetainSet() {  // 3.3.1.3; [MQTT-3.3.1-8 (3.1.1)]
        retained.retain(retainedMessage("a/b", "x"));
        var sent = subscribe("a/+");
        assertEquals(1, sent.size());
        assertEquals("a/b", sent.get(0).topic());
        assertTrue(sent.get(0).retain(), "RETAIN 1 even without Retain As Published");
    }

    @Test
    void aRetainedMessageReplacesTheTopicsPreviousOne() {  // [MQTT-3.3.1-5 (5.0)]
        retained.retain(retainedMessage("t", "old"));
        retained.retain(retainedMessage("t", "new"));
        assertEquals(Set.of("new"), payloadsFor("t"));
        assertEquals(1, retained.size());
    }

    @Test
    void anEmptyRetainedPayloadRemovesTheRetainedMessage() {  // [MQTT-3.3.1-6 (5.0)]
        retained.retain(retainedMessage("t", "x"));
        retained.retain(retainedMessage("t", ""));
        assertEquals(List.of(), subscribe("t"));
        assertEquals(0, retained.size());
    }

    @Test
    void anEmptyRetainedPayloadIsNeverStored() {  // [MQTT-3.3.1-7 (5.0)]
        retained.retain(retainedMessage("t", ""));
        assertEquals(0, retained.size());
        assertEquals(List.of(), subscribe("#"));
    }

    @Test
    void retainZeroNeitherStoresNorRemoves() {  // [MQTT-3.3.1-8 (5.0)]
        retained.retain(publish("a", "not retained", QoS.AT_LEAST_ONCE, false));
        assertEquals(0, retained.size());
        retained.retain(retainedMessage("b", "kept"));
        retained.retain(publish("b", "", QoS.AT_LEAST_ONCE, false));
        retained.retain(publish("b", "other", QoS.AT_LEAST_ONCE, false));
        assertEquals(Set.of("kept"), payloadsFor("b"));
    }

    @Test
    void retainHandlingZeroSendsOnEverySubscribe() {  // [MQTT-3.3.1-9 (5.0)]
        retained.retain(retainedMessage("t", "x"));
        assertEquals(1, retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 0), true, NOW).size());
        assertEquals(1, retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 0), false, NOW).size(),
                "re-sent on a replaced subscription too");  // [MQTT-3.8.4-4 (5.0)]
    }

    @Test
    void retainHandlingOneSendsOnlyForANewSubscription() {  // [MQTT-3.3.1-10 (5.0)]
        retained.retain(retainedMessage("t", "x"));
        assertEquals(1, retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 1), true, NOW).size());
        assertEquals(List.of(), retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 1), false, NOW));
    }

    @Test
    void retainHandlingTwoNeverSends() {  // [MQTT-3.3.1-11 (5.0)]
        retained.retain(retainedMessage("t", "x"));
        assertEquals(List.of(), retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 2), true, NOW));
    }

    @Test
    void aSharedSubscriptionGetsNoRetainedMessages() {  // 3.3.1.3: sent when a new Non-shared Subscription is made
        retained.retain(retainedMessage("t", "x"));
        assertEquals(List.of(), retained.forSubscription(request("$share/g/t", QoS.AT_LEAST_ONCE, 0), true, NOW));
        assertEquals(1, retained.size(), "still there for non-shared subscribers");
    }

    @Test
    void theQosIsTheLowerOfTheRetainedAndTheGranted() {  // [MQTT-3.8.4-8 (5.0)]
        retained.retain(publish("q2", "x", QoS.EXACTLY_ONCE, true));
        retained.retain(publish("q0", "x", QoS.AT_MOST_ONCE, true));
        var sent = retained.forSubscription(request("+", QoS.AT_LEAST_ONCE, 0), true, NOW).stream()
                .collect(Collectors.toMap(Message::topic, Message::qos));
        assertEquals(QoS.AT_LEAST_ONCE, sent.get("q2"));
        assertEquals(QoS.AT_MOST_ONCE, sent.get("q0"));
    }

    @Test
    void theSubscriptionIdentifierGoesWithTheRetainedMessage() {  // [MQTT-3.3.4-3 (5.0)]
        retained.retain(retainedMessage("t", "x"));
        var options = new SubscriptionOptions(QoS.AT_LEAST_ONCE, false, false, 0);
        var sent = retained.forSubscription(new SubscribeRequest("t", options, 12), true, NOW);
        assertEquals(List.of(12), sent.get(0).properties().subscriptionIdentifiers());
        assertEquals(List.of(), subscribe("t").get(0).properties().subscriptionIdentifiers(),
                "the stored message keeps no subscriber's identifier");
    }

    @Test
    void anExpiredRetainedMessageIsNotSentAndIsDropped() {  // [MQTT-3.3.2-5 (5.0)]
        var tenSeconds = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        retained.retain(Message.received("t", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true, tenSeconds, NOW));
        assertEquals(1, retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 0), true, NOW + 9 * SECOND).size());
        assertEquals(List.of(), retained.forSubscription(request("t", QoS.AT_LEAST_ONCE, 0), true, NOW + 10 * SECOND));
        assertEquals(0, retained.size());
    }

    @Test
    void leadingWildcardsGetNoDollarTopicsRetained() {  // [MQTT-4.7.2-1]
        retained.retain(retainedMessage("$SYS/uptime", "sys"));
        retained.retain(retainedMessage("uptime", "plain"));
        assertEquals(Set.of("plain"), payloadsFor("#"));
        assertEquals(Set.of("plain"), payloadsFor("+"));
        assertEquals(Set.of("sys"), payloadsFor("$SYS/#"));
    }

    @Test
    void aHashFilterGetsTheParentTopicsRetainedMessage() {  // 4.7.1.2: "sport/#" matches "sport"
        retained.retain(retainedMessage("sport", "parent"));
        retained.retain(retainedMessage("sport/tennis", "child"));
        retained.retain(retainedMessage("sports", "other"));
        assertEquals(Set.of("parent", "child"), payloadsFor("sport/#"));
        assertEquals(Set.of("child"), payloadsFor("sport/+"));
    }

    @Test
    void withRetainNotAvailableNothingIsStored() {  // retain-available = false ([MQTT-3.2.2-14 (5.0)] refuses RETAIN 1)
        var unavailable = new RetainedMessages(false);
        unavailable.retain(retainedMessage("t", "x"));
        assertEquals(0, unavailable.size());
        assertEquals(List.of(), unavailable.forSubscription(request("t", QoS.AT_LEAST_ONCE, 0), true, NOW));
    }

    @Test
    void eachShardCountsItsPartOfTheRetainedPayloads() {
        var budget = new MemoryBudget(0, 0);
        var onOneOfFour = new RetainedMessages(true, budget, 4);
        onOneOfFour.retain(retainedMessage("a", "x".repeat(400)));
        assertEquals(100, budget.used(), "a quarter: every shard holds the same message");
        onOneOfFour.retain(retainedMessage("a", "x".repeat(800)));
        assertEquals(200, budget.used(), "the replaced one no longer counts");
        onOneOfFour.retain(retainedMessage("b", "x".repeat(2)));
        onOneOfFour.retain(retainedMessage("a", ""));
        assertEquals(0, budget.used(), "an empty payload removes it; 2 bytes in 4 parts round to nothing");
        assertEquals(2, onOneOfFour.bytes());
    }

    @Test
    void anExpiredRetainedMessageNoLongerCounts() {
        var budget = new MemoryBudget(0, 0);
        var counted = new RetainedMessages(true, budget, 1);
        var expiry = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 1L).build();
        counted.retain(Message.received("a/b", Binary.utf8("gone soon"), QoS.AT_LEAST_ONCE, true, expiry, NOW));
        assertEquals(9, budget.used());
        assertTrue(counted.forSubscription(request("a/#", QoS.AT_LEAST_ONCE, 0), true, NOW + 2 * SECOND).isEmpty());
        assertEquals(0, budget.used());
    }

    private static Message receivedAt(String topic, String payload, long at) {
        return Message.received(topic, Binary.utf8(payload), QoS.AT_LEAST_ONCE, true, Properties.NONE, at);
    }

    @Test
    void aRetainedMessageCaughtUpFromAnotherNodeIsKeptUnlessANewerOneIsHeld() {
        assertTrue(retained.caughtUp(receivedAt("a", "from the older node", NOW)), "none held: kept");
        assertTrue(retained.caughtUp(receivedAt("a", "newer", NOW + SECOND)), "newer than the one held: kept");
        assertEquals(false, retained.caughtUp(receivedAt("a", "older", NOW)), "older than the one held: not kept");
        retained.retain(receivedAt("b", "published here", NOW + 2 * SECOND));
        assertEquals(false, retained.caughtUp(receivedAt("b", "caught up but older", NOW + SECOND)));
        assertEquals(false, retained.caughtUp(receivedAt("c", "", NOW)), "an empty payload retains nothing");
        var held = retained.all().stream().collect(Collectors.toMap(Message::topic, m -> m.payload().asUtf8()));
        assertEquals(java.util.Map.of("a", "newer", "b", "published here"), held);
    }
}
