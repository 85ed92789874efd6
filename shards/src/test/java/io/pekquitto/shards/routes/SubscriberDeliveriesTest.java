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
import org.junit.jupiter.api.Test;

/** What each subscribing client gets of one published message (3.3.4, 3.8.3.1). */
class SubscriberDeliveriesTest {
    private final TopicRoutes routes = new TopicRoutes();
    private final SubscriberDeliveries deliveries = new SubscriberDeliveries();
    private final Map<String, Message> received = new LinkedHashMap<>();

    private static SubscriptionEntry entry(QoS qos, boolean noLocal, boolean retainAsPublished, int identifier) {
        return new SubscriptionEntry(new SubscriptionOptions(qos, noLocal, retainAsPublished, 0), identifier);
    }

    private static Message message(QoS qos, boolean retain) {
        return Message.received("a/b", Binary.utf8("x"), qos, retain, Properties.NONE, 0);
    }

    private void publish(String publisher, Message message) {
        deliveries.deliver(routes.routeFor(message.topic()), publisher, message, (clientId, m) -> {
            var previous = received.put(clientId, m);
            assertEquals(null, previous, "one message per client");
        });
    }

    @Test
    void theQosIsTheLowerOfTheMessagesAndTheSubscriptions() {  // [MQTT-3.8.4-8]
        routes.subscribe("low", "a/b", entry(QoS.AT_MOST_ONCE, false, false, 0));
        routes.subscribe("high", "a/b", entry(QoS.EXACTLY_ONCE, false, false, 0));
        publish("p", message(QoS.AT_LEAST_ONCE, false));
        assertEquals(QoS.AT_MOST_ONCE, received.get("low").qos());
        assertEquals(QoS.AT_LEAST_ONCE, received.get("high").qos());
    }

    @Test
    void aMessageNothingChangesIsNotCopied() {  // one instance shared by every such subscriber
        routes.subscribe("c1", "a/b", entry(QoS.EXACTLY_ONCE, false, false, 0));
        routes.subscribe("c2", "a/+", entry(QoS.AT_LEAST_ONCE, false, false, 0));
        var message = message(QoS.AT_LEAST_ONCE, false);
        publish("p", message);
        assertSame(message, received.get("c1"));
        assertSame(message, received.get("c2"));
    }

    @Test
    void noLocalSkipsThePublishersOwnSubscription() {  // [MQTT-3.8.3-3]
        routes.subscribe("me", "a/b", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        routes.subscribe("other", "a/b", entry(QoS.AT_LEAST_ONCE, true, false, 0));
        publish("me", message(QoS.AT_LEAST_ONCE, false));
        assertEquals(List.of("other"), List.copyOf(received.keySet()));
    }

    @Test
    void noLocalAppliesPerSubscriptionOfAnOverlappingClient() {  // 3.3.4: one with No Local, one without
        routes.subscribe("me", "a/b", entry(QoS.AT_LEAST_ONCE, true, false, 1));
        routes.subscribe("me", "a/+", entry(QoS.AT_MOST_ONCE, false, false, 2));
        publish("me", message(QoS.AT_LEAST_ONCE, false));
        var message = received.get("me");
        assertEquals(QoS.AT_MOST_ONCE, message.qos(), "only the subscription without No Local counts");
        assertEquals(List.of(2), message.properties().subscriptionIdentifiers());
    }

    @Test
    void overlappingSubscriptionsGiveOneMessageAtTheHighestQosWithEveryIdentifier() {  // [MQTT-3.3.4-2] [MQTT-3.3.4-3]
        routes.subscribe("c", "a/b", entry(QoS.AT_MOST_ONCE, false, false, 1));
        routes.subscribe("c", "a/+", entry(QoS.EXACTLY_ONCE, false, false, 2));
        routes.subscribe("c", "#", entry(QoS.AT_LEAST_ONCE, false, false, 0));
        publish("p", message(QoS.EXACTLY_ONCE, false));
        var message = received.get("c");
        assertEquals(QoS.EXACTLY_ONCE, message.qos());
        assertEquals(List.of(1, 2), message.properties().subscriptionIdentifiers().stream().sorted().toList());
    }

    @Test
    void aSubscriptionIdentifierIsAddedToTheMessageOfItsSubscription() {  // [MQTT-3.3.4-3]
        routes.subscribe("c", "a/b", entry(QoS.AT_MOST_ONCE, false, false, 7));
        publish("p", message(QoS.AT_MOST_ONCE, false));
        assertEquals(List.of(7), received.get("c").properties().subscriptionIdentifiers());
    }

    @Test
    void retainIsKeptOnlyWithRetainAsPublished() {  // [MQTT-3.3.1-12] [MQTT-3.3.1-13]
        routes.subscribe("plain", "a/b", entry(QoS.AT_MOST_ONCE, false, false, 0));
        routes.subscribe("rap", "a/b", entry(QoS.AT_MOST_ONCE, false, true, 0));
        publish("p", message(QoS.AT_MOST_ONCE, true));
        assertFalse(received.get("plain").retain());
        assertTrue(received.get("rap").retain());
    }

    @Test
    void overlappingSubscriptionsKeepRetainIfAnyHasRetainAsPublished() {  // README: the choice where 3.3.4 leaves one
        routes.subscribe("c", "a/b", entry(QoS.AT_MOST_ONCE, false, true, 0));
        routes.subscribe("c", "a/#", entry(QoS.AT_MOST_ONCE, false, false, 0));
        publish("p", message(QoS.AT_MOST_ONCE, true));
        assertTrue(received.get("c").retain());
    }

    @Test
    void aSharedMemberGetsItsSubscriptionsMessageMarkedWithTheGroup() {  // 4.8.2
        routes.subscribe("m", "$share/g/a/+", entry(QoS.AT_MOST_ONCE, false, false, 3));
        var group = routes.routeFor("a/b").groups().get(0);
        var message = SubscriberDeliveries.forMember(group, group.members().get(0), message(QoS.AT_LEAST_ONCE, false));
        assertEquals(QoS.AT_MOST_ONCE, message.qos());
        assertEquals("$share/g/a/+", message.sharedFilter());
        assertSame(group.sharedFilter(), message.sharedFilter(), "the group's string, not a new one per delivery");
        assertEquals(List.of(3), message.properties().subscriptionIdentifiers());
    }
}
