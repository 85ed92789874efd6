package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SubscriberDeliveriesTest {
    private static final long NOW = 5_000_000_000L;

    private final TopicRoutes routes = new TopicRoutes();
    private final SubscriberDeliveries deliveries = new SubscriberDeliveries();
    /** What each client got; a second message to one client would overwrite, so count too. */
    private final Map<String, Message> delivered = new LinkedHashMap<>();
    private int deliveryCount;

    private static SubscriptionEntry entry(QoS qos, boolean noLocal, boolean retainAsPublished, int identifier) {
        return new SubscriptionEntry(new SubscriptionOptions(qos, noLocal, retainAsPublished, 0), identifier);
    }

    private static SubscriptionEntry entry(QoS qos) {
        return entry(qos, false, false, 0);
    }

    private static Message published(String topic, QoS qos, boolean retain) {
        return Message.received(topic, Binary.utf8("m"), qos, retain, Properties.NONE, NOW);
    }

    private void deliver(String publisherId, Message message) {
        deliveries.deliver(routes.routeFor(message.topic()), publisherId, message, (clientId, m) -> {
            delivered.put(clientId, m);
            deliveryCount++;
        });
    }

    @Test
    void theQosIsTheLowerOfThePublishedAndTheGranted() {  // [MQTT-3.8.4-8 (5.0)]
        routes.subscribe("low", "t", entry(QoS.AT_MOST_ONCE));
        routes.subscribe("high", "t", entry(QoS.EXACTLY_ONCE));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, false));
        assertEquals(QoS.AT_MOST_ONCE, delivered.get("low").qos());
        assertEquals(QoS.AT_LEAST_ONCE, delivered.get("high").qos());
    }

    @Test
    void aSubscriptionThatChangesNothingGetsTheSameMessageNotACopy() {
        routes.subscribe("a", "t", entry(QoS.EXACTLY_ONCE));
        routes.subscribe("b", "+", entry(QoS.AT_LEAST_ONCE));
        var message = published("t", QoS.AT_LEAST_ONCE, false);
        deliver("p", message);
        assertSame(message, delivered.get("a"));
        assertSame(message, delivered.get("b"));
    }

    @Test
    void withoutRetainAsPublishedTheRetainFlagIsCleared() {  // [MQTT-3.3.1-12 (5.0)]
        routes.subscribe("c", "t", entry(QoS.AT_LEAST_ONCE, false, false, 0));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, true));
        assertFalse(delivered.get("c").retain());
    }

    @Test
    void withRetainAsPublishedTheRetainFlagIsKept() {  // [MQTT-3.3.1-13 (5.0)]
        routes.subscribe("c", "t", entry(QoS.AT_LEAST_ONCE, false, true, 0));
        var retained = published("t", QoS.AT_LEAST_ONCE, true);
        deliver("p", retained);
        assertTrue(delivered.get("c").retain());
        assertSame(retained, delivered.get("c"));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, false));
        assertFalse(delivered.get("c").retain(), "RETAIN 0 stays 0");
    }

    @Test
    void noLocalSkipsOnlyThePublishersOwnSubscription() {  // [MQTT-3.8.3-3 (5.0)]
        routes.subscribe("p", "t", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        routes.subscribe("other", "t", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, false));
        assertEquals(Set.of("other"), delivered.keySet());
    }

    @Test
    void withoutNoLocalThePublisherGetsItsOwnMessage() {
        routes.subscribe("p", "t", entry(QoS.AT_LEAST_ONCE));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, false));
        assertEquals(Set.of("p"), delivered.keySet());
    }

    @Test
    void aSubscriptionIdentifierIsSentWithTheMessage() {  // 3.3.2.3.8
        routes.subscribe("c", "t", entry(QoS.AT_LEAST_ONCE, false, false, 42));
        routes.subscribe("d", "t", entry(QoS.AT_LEAST_ONCE));
        deliver("p", published("t", QoS.AT_LEAST_ONCE, false));
        assertEquals(List.of(42), delivered.get("c").properties().subscriptionIdentifiers());
        assertEquals(List.of(), delivered.get("d").properties().subscriptionIdentifiers(), "not another client's");
    }

    // ---- overlapping subscriptions of one client

    @Test
    void overlappingSubscriptionsDeliverOnceAtTheHighestQos() {  // [MQTT-3.3.4-2 (5.0)]
        routes.subscribe("c", "a/#", entry(QoS.AT_MOST_ONCE));
        routes.subscribe("c", "a/+", entry(QoS.EXACTLY_ONCE));
        routes.subscribe("c", "a/b", entry(QoS.AT_LEAST_ONCE));
        deliver("p", published("a/b", QoS.EXACTLY_ONCE, false));
        assertEquals(1, deliveryCount);
        assertEquals(QoS.EXACTLY_ONCE, delivered.get("c").qos());
    }

    @Test
    void overlappingSubscriptionsNeverRaiseThePublishedQos() {  // [MQTT-3.8.4-8 (5.0)]
        routes.subscribe("c", "a/#", entry(QoS.EXACTLY_ONCE));
        routes.subscribe("c", "a/b", entry(QoS.EXACTLY_ONCE));
        deliver("p", published("a/b", QoS.AT_LEAST_ONCE, false));
        assertEquals(QoS.AT_LEAST_ONCE, delivered.get("c").qos());
    }

    @Test
    void overlappingSubscriptionsSendEveryIdentifier() {  // [MQTT-3.3.4-3 (5.0)], [MQTT-3.3.4-4 (5.0)]: order not significant
        routes.subscribe("c", "a/#", entry(QoS.AT_LEAST_ONCE, false, false, 1));
        routes.subscribe("c", "a/+", entry(QoS.AT_LEAST_ONCE, false, false, 2));
        routes.subscribe("c", "a/b", entry(QoS.AT_LEAST_ONCE));  // no identifier: adds none
        deliver("p", published("a/b", QoS.AT_LEAST_ONCE, false));
        assertEquals(1, deliveryCount);
        var identifiers = delivered.get("c").properties().subscriptionIdentifiers();
        assertEquals(2, identifiers.size());
        assertEquals(Set.of(1, 2), Set.copyOf(identifiers));
    }

    @Test
    void overlappingSubscriptionsThatChangeNothingGiveTheSameMessage() {
        routes.subscribe("c", "a/#", entry(QoS.AT_LEAST_ONCE));
        routes.subscribe("c", "a/b", entry(QoS.EXACTLY_ONCE));
        var message = published("a/b", QoS.AT_LEAST_ONCE, false);
        deliver("p", message);
        assertSame(message, delivered.get("c"));
    }

    @Test
    void noLocalOnOneOverlappingSubscriptionLeavesTheOther() {  // [MQTT-3.8.3-3 (5.0)] is per subscription
        routes.subscribe("p", "a/#", entry(QoS.EXACTLY_ONCE, true, false, 1));
        routes.subscribe("p", "a/b", entry(QoS.AT_MOST_ONCE, false, false, 2));
        deliver("p", published("a/b", QoS.EXACTLY_ONCE, false));
        assertEquals(1, deliveryCount);
        var message = delivered.get("p");
        assertEquals(QoS.AT_MOST_ONCE, message.qos(), "the No Local subscription does not count");
        assertEquals(List.of(2), message.properties().subscriptionIdentifiers());
    }

    @Test
    void noLocalOnEveryOverlappingSubscriptionDeliversNothingToThePublisher() {  // [MQTT-3.8.3-3 (5.0)]
        routes.subscribe("p", "a/#", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        routes.subscribe("p", "a/b", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        routes.subscribe("q", "a/b", entry(QoS.AT_LEAST_ONCE));
        deliver("p", published("a/b", QoS.AT_LEAST_ONCE, false));
        assertEquals(Set.of("q"), delivered.keySet());
        assertEquals(1, deliveryCount);
    }

    @Test
    void oneMessagesOverlapDoesNotLeakIntoTheNext() {
        routes.subscribe("c", "a/#", entry(QoS.EXACTLY_ONCE, false, false, 9));
        routes.subscribe("c", "a/b", entry(QoS.EXACTLY_ONCE));
        routes.subscribe("d", "x/#", entry(QoS.AT_MOST_ONCE));
        routes.subscribe("d", "x/y", entry(QoS.AT_MOST_ONCE));
        deliver("p", published("a/b", QoS.EXACTLY_ONCE, false));
        delivered.clear();
        deliveryCount = 0;
        deliver("p", published("x/y", QoS.EXACTLY_ONCE, false));
        assertEquals(Set.of("d"), delivered.keySet(), "c does not match x/y");
        assertEquals(QoS.AT_MOST_ONCE, delivered.get("d").qos());
        assertEquals(List.of(), delivered.get("d").properties().subscriptionIdentifiers());
    }

    // ---- shared subscriptions (4.8.2)

    @Test
    void aMembersMessageCarriesThePrecomputedSharedFilter() {
        routes.subscribe("c", "$share/g/a/+", entry(QoS.AT_LEAST_ONCE, false, false, 3));
        var group = routes.routeFor("a/b").groups().get(0);
        var member = group.member("c");
        var first = SubscriberDeliveries.forMember(group, member, published("a/b", QoS.EXACTLY_ONCE, false));
        var second = SubscriberDeliveries.forMember(group, member, published("a/b", QoS.AT_MOST_ONCE, false));
        assertEquals("$share/g/a/+", first.sharedFilter());
        assertSame(group.sharedFilter(), first.sharedFilter(), "the group's string, not one built per delivery");
        assertSame(group.sharedFilter(), second.sharedFilter());
        assertEquals(QoS.AT_LEAST_ONCE, first.qos(), "the member's granted QoS applies");  // [MQTT-4.8.2-3 (5.0)]
        assertEquals(List.of(3), first.properties().subscriptionIdentifiers());
    }
}
