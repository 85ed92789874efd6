package io.pekquitto.shards.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.stats.ShardStats;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubscriberWindowTest {
    private static final long NOW = 1_000_000_000L;

    private final Session session = new Session("c", 2, false);
    /** Two QoS 1/2 messages in flight at most, three QoS 0. */
    private final SubscriberWindow<String> window = new SubscriberWindow<>(session, 2, 3, ShardStats.unobserved());

    private static Message message(String topic, QoS qos, int... subscriptionIdentifiers) {
        var properties = Properties.builder();
        for (int identifier : subscriptionIdentifiers) properties.addSubscriptionIdentifier(identifier);
        return Message.received(topic, Binary.utf8("x"), qos, false, properties.build(), NOW);
    }

    private static List<String> subscribers(List<SubscriberWindow.Delivery<String>> deliveries) {
        return deliveries.stream().map(SubscriberWindow.Delivery::subscriber).toList();
    }

    @Test
    void aMessageGoesToTheSubscriberOfTheSubscriptionItNamesAndLeavesTheWindowWhenAcknowledged() {
        int lamps = window.subscribe("home/+/lamp", "lamps");
        window.subscribe("home/#", "everything");
        var deliveries = window.deliver(List.of(message("home/kitchen/lamp", QoS.AT_LEAST_ONCE, lamps)), NOW);
        assertEquals(List.of("lamps"), subscribers(deliveries), "the subscription the shard matched, not every filter");
        assertEquals(1, session.inflightCount());
        window.acknowledged(deliveries.get(0).number(), NOW);
        assertEquals(0, session.inflightCount(), "PUBACK");
    }

    @Test
    void overlappingSubscriptionsTellEachSubscriberOnceAndCompleteWhenAllHaveAcknowledged() {  // [MQTT-3.3.4-2]
        int first = window.subscribe("a/+", "first");
        int second = window.subscribe("a/#", "second");
        int alsoFirst = window.subscribe("+/b", "first");
        var deliveries = window.deliver(List.of(message("a/b", QoS.AT_LEAST_ONCE, first, second, alsoFirst)), NOW);
        assertEquals(List.of("first", "second"), subscribers(deliveries));
        window.acknowledged(deliveries.get(0).number(), NOW);
        assertEquals(1, session.inflightCount(), "one subscriber has still to acknowledge");
        window.acknowledged(deliveries.get(1).number(), NOW);
        assertEquals(0, session.inflightCount());
    }

    @Test
    void aQos2MessageCompletesInOneStep() {
        int id = window.subscribe("a", "s");
        var delivery = window.deliver(List.of(message("a", QoS.EXACTLY_ONCE, id)), NOW).get(0);
        assertEquals(QoS.EXACTLY_ONCE, delivery.publish().qos());
        window.acknowledged(delivery.number(), NOW);
        assertEquals(0, session.inflightCount(), "PUBREC and PUBCOMP");
    }

    @Test
    void pastTheReceiveMaximumMessagesQueueAndGoOutAsTheSubscriberAcknowledges() {  // [MQTT-4.9.0-2]
        int id = window.subscribe("a", "slow");
        var first = window.deliver(List.of(message("a", QoS.AT_LEAST_ONCE, id), message("a", QoS.AT_LEAST_ONCE, id),
                message("a", QoS.AT_LEAST_ONCE, id)), NOW);
        assertEquals(2, first.size());
        assertEquals(1, session.queuedCount());
        var next = window.acknowledged(first.get(0).number(), NOW);
        assertEquals(1, next.size(), "the queued one, now that there is room");
        assertEquals(0, session.queuedCount());
    }

    @Test
    void aSubscriberThatDoesNotAcknowledgeCostsTheQueueLimitsNotMemory() {
        int id = window.subscribe("a", "stuck");
        for (int i = 0; i < 10; i++) window.deliver(List.of(message("a", QoS.AT_LEAST_ONCE, id)), NOW);
        assertEquals(2, session.inflightCount());
        assertEquals(2, session.queuedCount(), "max-queued-messages");
        assertEquals(6, session.droppedMessages());
        for (int i = 0; i < 10; i++) window.deliver(List.of(message("a", QoS.AT_MOST_ONCE, id)), NOW);
        assertEquals(7, window.droppedQos0(), "three QoS 0 unacknowledged at most");
    }

    @Test
    void acknowledgingTwiceCountsOnce() {
        int id = window.subscribe("a", "s");
        var deliveries = window.deliver(List.of(message("a", QoS.AT_MOST_ONCE, id), message("a", QoS.AT_MOST_ONCE, id),
                message("a", QoS.AT_MOST_ONCE, id)), NOW);
        for (int i = 0; i < 3; i++) window.acknowledged(deliveries.get(0).number(), NOW);
        assertEquals(1, window.deliver(List.of(message("a", QoS.AT_MOST_ONCE, id), message("a", QoS.AT_MOST_ONCE, id)), NOW).size(),
                "one slot freed, not three");
    }

    @Test
    void anExpiredMessageIsNotDelivered() {  // [MQTT-3.3.2-5]
        int id = window.subscribe("a", "s");
        var expiring = Message.received("a", Binary.utf8("x"), QoS.AT_LEAST_ONCE, false,
                Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 1L).addSubscriptionIdentifier(id).build(), NOW);
        assertTrue(window.deliver(List.of(expiring), NOW + 2_000_000_000L).isEmpty());
        assertEquals(0, session.inflightCount());
    }

    @Test
    void aMessageOfTheSessionsEarlierLifeWaitsForASubscriptionThatMatchesIt() {
        // Identifier 7 was an earlier client actor's; this one has none yet, or one to another filter.
        int other = window.subscribe("elsewhere", "s");
        assertTrue(window.deliver(List.of(message("a/b", QoS.AT_LEAST_ONCE, 7, other)), NOW).isEmpty());
        assertTrue(window.deliver(List.of(message("a/b", QoS.AT_MOST_ONCE, other)), NOW).isEmpty());
        assertEquals(1, window.unclaimedCount(), "QoS 1 held in flight");
        assertEquals(1, window.droppedQos0(), "QoS 0 dropped");
        window.subscribe("a/#", "later");
        var claimed = window.claimUnclaimed();
        assertEquals(List.of("later"), subscribers(claimed));
        assertEquals(0, window.unclaimedCount());
    }

    @Test
    void replacingASubscriptionGivesItsMessagesToTheNewSubscriber() {
        int old = window.subscribe("a", "old");
        window.subscribe("a", "new");
        assertEquals(List.of("new"), subscribers(window.deliver(List.of(message("a", QoS.AT_LEAST_ONCE, old)), NOW)));
    }

    @Test
    void aResumedSessionSendsItsUnacknowledgedMessagesAgainMarkedDuplicate() {  // [MQTT-4.4.0-1]
        session.startFlight(message("a", QoS.AT_LEAST_ONCE), NOW);
        session.enqueue(message("a", QoS.AT_LEAST_ONCE), true);
        window.subscribe("a", "s");
        var resumed = window.resume(NOW);
        assertEquals(2, resumed.size());
        assertTrue(resumed.get(0).publish().dup());
        assertFalse(resumed.get(1).publish().dup());
    }

    @Test
    void aStoppedSubscriberLeavesItsFiltersAndItsDeliveriesCountAsAcknowledged() {
        int gone = window.subscribe("a", "gone");
        window.subscribe("b", "stays");
        window.deliver(List.of(message("a", QoS.AT_LEAST_ONCE, gone), message("a", QoS.AT_LEAST_ONCE, gone),
                message("a", QoS.AT_LEAST_ONCE, gone)), NOW);
        var stopped = window.subscriberStopped("gone", NOW);
        assertEquals(List.of("a"), stopped.filters());
        assertEquals(0, session.queuedCount(), "the queued one went out too");
        assertEquals(1, window.unclaimedCount(), "to nobody: it waits for a subscriber");
    }
}
