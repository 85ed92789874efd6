package io.pekquitto.e2e.subscribe;

import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.UNSUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.V3Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** SUBSCRIBE, SUBACK, topic filter matching, UNSUBSCRIBE and UNSUBACK (3.8 - 3.11, 4.7). */
class SubscribeIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(10)
    @DisplayName("one SUBACK answers every filter in order: granted QoS for valid ones, failure (3.1.1: 0x80, 5.0: 0x8F) for invalid ones [MQTT-3.8.4-4] [MQTT-3.8.4-5] [MQTT-3.9.3-1] (3.1.1) [MQTT-3.8.4-5] [MQTT-3.8.4-6] [MQTT-3.9.3-1] (5.0)")
    void subAckHasOneCodePerFilter(int version) throws Exception {
        String root = Names.topic("suback");
        int failure = version == V5 ? 0x8F : 0x80;   // 5.0: Topic Filter invalid; 3.1.1: Failure
        try (var client = broker.raw(Connect.of(version, Names.clientId("suback")))) {
            client.send(RawClient.subscribe(version, 42,
                    new Filter(root + "/a", 1),
                    new Filter("a/#/b", 1),           // '#' not last [MQTT-4.7.1-2 (3.1.1)] [MQTT-4.7.1-1 (5.0)]
                    new Filter(root + "/+", 2),
                    new Filter("sport+", 0)));        // '+' not a whole level [MQTT-4.7.1-3 (3.1.1)] [MQTT-4.7.1-2 (5.0)]
            var subAck = client.expect(SUBACK);
            assertEquals(42, subAck.packetId(), "SUBACK carries the SUBSCRIBE's packet id [MQTT-3.8.4-2]");
            assertEquals(List.of(1, failure, 2, failure), subAck.ackReasons(version));
            client.send(RawClient.pingReq());
            client.expect(PINGRESP);   // a refused filter does not end the connection
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: Maximum QoS 3 or Retain Handling 3 in the Subscription Options is a Protocol Error: DISCONNECT 0x82 (3.8.3.1)")
    void invalidSubscriptionOptionsAreAProtocolErrorIn5() throws Exception {
        for (int options : new int[] {0x03, 0x30}) {   // Maximum QoS 3; Retain Handling 3
            try (var client = broker.raw(Connect.of(V5, Names.clientId("options")))) {
                client.send(RawClient.subscribe(V5, 1, new Filter(Names.topic("options"), options)));
                client.expectDisconnect(0x82, Duration.ofSeconds(5));
            }
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("3.1.1: a requested QoS of 3 is malformed: the connection closes [MQTT-3.8.3-4]")
    void requestedQos3ClosesIn311() throws Exception {
        try (var client = broker.raw(Connect.of(V311, Names.clientId("qos3")))) {
            client.send(RawClient.subscribe(V311, 1, new Filter(Names.topic("qos3"), 3)));
            client.expectClosed(Duration.ofSeconds(5));
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("'+' matches one whole level and '#' the parent and any number of levels, 'sport/#' matching 'sport' (4.7.1.2, 4.7.1.3)")
    void wildcardsMatchAsSpecified() throws Exception {
        String r = Names.topic("wild");
        // The filters and the topics of the examples in 4.7.1, under a root unique to this test.
        Map<String, Set<String>> expected = new LinkedHashMap<>();
        expected.put(r + "/sport/#", Set.of(r + "/sport", r + "/sport/tennis", r + "/sport/tennis/player1",
                r + "/sport/tennis/player1/ranking", r + "/sport/"));
        expected.put(r + "/sport/tennis/+", Set.of(r + "/sport/tennis/player1"));
        expected.put(r + "/sport/+", Set.of(r + "/sport/tennis", r + "/sport/"));
        expected.put(r + "/+/tennis/#", Set.of(r + "/sport/tennis", r + "/sport/tennis/player1",
                r + "/sport/tennis/player1/ranking"));
        expected.put(r + "/+", Set.of(r + "/sport", r + "/finance"));
        List<String> topics = List.of(r + "/sport", r + "/sport/tennis", r + "/sport/tennis/player1",
                r + "/sport/tennis/player1/ranking", r + "/sport/", r + "/finance", r + "/finance/sport/tennis");

        var subscribers = new ArrayList<V3Client>();
        try {
            var publisher = broker.publishers().v3();
            for (String filter : expected.keySet()) {
                // One client per filter: overlapping subscriptions of one client may legally give copies.
                var subscriber = broker.v3(Names.clientId("sub"));
                subscribers.add(subscriber);
                assertEquals(1, subscriber.subscribe(filter, 1));
            }
            for (String topic : topics) publisher.publish(topic, topic, 1, false);
            int i = 0;
            for (var entry : expected.entrySet()) {
                var inbox = subscribers.get(i++).inbox();
                var received = new TreeSet<String>();
                for (var message : inbox.next(entry.getValue().size(), Duration.ofSeconds(5))) received.add(message.topic());
                assertEquals(new TreeSet<>(entry.getValue()), received, "filter " + entry.getKey());
                inbox.expectNothing();
            }
        } finally {
            for (var subscriber : subscribers) subscriber.close();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("filters starting with a wildcard do not match topics starting with '$'; an explicit '$' filter does [MQTT-4.7.2-1]")
    void wildcardFiltersDoNotMatchDollarTopics() throws Exception {
        String plain = Names.topic("dollar").replace('/', '-');
        String dollarTopic = "$" + plain + "/x";
        String plainTopic = plain + "/x";
        try (var hash = broker.v3(Names.clientId("hash"));
             var plus = broker.v3(Names.clientId("plus"));
             var dollar = broker.v3(Names.clientId("dollar"))) {
            var publisher = broker.publishers().v3();
            assertEquals(1, hash.subscribe("#", 1));
            assertEquals(1, plus.subscribe("+/x", 1));
            assertEquals(1, dollar.subscribe("$" + plain + "/#", 1));
            publisher.publish(dollarTopic, "dollar", 1, false);
            publisher.publish(plainTopic, "plain", 1, false);

            assertEquals(dollarTopic, dollar.inbox().next().topic(), "the '$' topic was published and routed");
            // '#' sees every other test's traffic too: only the absence of the '$' topic matters.
            assertEquals(plainTopic, nextOn(hash.inbox(), Set.of(plainTopic, dollarTopic)).topic());
            assertEquals(plainTopic, plus.inbox().next().topic());
            plus.inbox().expectNothing();
            hash.inbox().expectNothingOn(dollarTopic, Inbox.QUIET);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("after UNSUBSCRIBE (acknowledged by UNSUBACK) no new message for that filter is delivered [MQTT-3.10.4-2] [MQTT-3.10.4-4]")
    void unsubscribeStopsDelivery(int version) throws Exception {
        String root = Names.topic("unsub");
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(1, subscriber.subscribe(root + "/a", 1));
            assertEquals(1, subscriber.subscribe(root + "/b", 1));
            publisher.publish(root + "/a", "before", 1, false);
            assertEquals("before", subscriber.inbox().next().text());

            subscriber.unsubscribe(root + "/a");   // Paho returns once the UNSUBACK has arrived
            publisher.publish(root + "/a", "after", 1, false);
            publisher.publish(root + "/b", "marker", 1, false);
            var next = subscriber.inbox().next();
            assertEquals(root + "/b", next.topic(), "got " + next + " after UNSUBSCRIBE");
            subscriber.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("5.0: UNSUBACK has a reason per filter in order: 0x00 Success, 0x11 No subscription existed [MQTT-3.11.3-1] [MQTT-3.10.4-5]")
    void unsubAckReasonsIn5() throws Exception {
        String root = Names.topic("unsuback5");
        try (var client = broker.raw(Connect.of(V5, Names.clientId("unsub5")))) {
            client.send(RawClient.subscribe(V5, 1, new Filter(root + "/a", 1)));
            client.expect(SUBACK);
            client.send(RawClient.unsubscribe(V5, 2, root + "/a", root + "/never"));
            var unsubAck = client.expect(UNSUBACK);
            assertEquals(2, unsubAck.packetId());
            assertEquals(List.of(0x00, 0x11), unsubAck.ackReasons(V5));
        }
    }

    @Test
    @Timeout(10)
    @DisplayName("3.1.1: UNSUBACK (remaining length 2, same packet id) answers even an UNSUBSCRIBE that deleted nothing [MQTT-3.10.4-4] [MQTT-3.10.4-5]")
    void unsubAckWithoutSubscriptionIn311() throws Exception {
        try (var client = broker.raw(Connect.of(V311, Names.clientId("unsub3")))) {
            client.send(RawClient.unsubscribe(V311, 7, Names.topic("never")));
            var unsubAck = client.expect(UNSUBACK);
            assertEquals(0xB0, unsubAck.header(), "UNSUBACK, flags 0000");
            assertEquals(2, unsubAck.body().length);
            assertEquals(7, unsubAck.packetId());
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("overlapping subscriptions of one client: the message is delivered at the highest granted QoS [MQTT-3.3.5-1 (3.1.1)] [MQTT-3.3.4-2 (5.0)]")
    void overlappingSubscriptionsDeliverAtTheHighestQos(int version) throws Exception {
        String root = Names.topic("overlap");
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(0, subscriber.subscribe(root + "/#", 0));
            assertEquals(2, subscriber.subscribe(root + "/a", 2));
            publisher.publish(root + "/a", "both match", 2, false);
            var first = subscriber.inbox().next();
            assertEquals("both match", first.text());
            // One copy, or one per subscription (5.0 allows either): one of them at QoS 2.
            int highest = first.qos();
            try {
                highest = Math.max(highest, subscriber.inbox().next(Inbox.QUIET).qos());
            } catch (AssertionError onlyOneCopy) {
                // a single copy: it alone must carry the highest QoS
            }
            assertEquals(2, highest);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a SUBSCRIBE with an existing filter replaces the subscription: one copy, at the new QoS [MQTT-3.8.4-3]")
    void sameFilterReplacesTheSubscription(int version) throws Exception {
        String topic = Names.topic("replace-sub");
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(0, subscriber.subscribe(topic, 0));
            assertEquals(2, subscriber.subscribe(topic, 2));
            publisher.publish(topic, "once", 2, false);
            var message = subscriber.inbox().next();
            assertEquals("once", message.text());
            assertEquals(2, message.qos());
            subscriber.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("matching is exact: case-sensitive, no Unicode normalization, '+' matches an empty first level (4.7.3) [MQTT-4.7.3-4]")
    void matchingIsExact() throws Exception {
        String unique = Names.topic("exact").replace('/', '-');
        String composed = unique + "/caf\u00e9";      // e-acute as one code point
        String decomposed = unique + "/cafe\u0301";   // e + combining acute accent
        try (var subscriber = broker.v3(Names.clientId("sub"))) {
            var publisher = broker.publishers().v3();
            subscriber.subscribe(decomposed, 1);
            subscriber.subscribe(unique + "/Accounts", 1);
            subscriber.subscribe("+/" + unique, 1);
            publisher.publish(composed, "composed", 1, false);
            publisher.publish(unique + "/ACCOUNTS", "upper case", 1, false);
            publisher.publish("/" + unique, "leading slash", 1, false);
            publisher.publish(decomposed, "decomposed", 1, false);
            publisher.publish(unique + "/Accounts", "same case", 1, false);
            var topics = new TreeSet<String>();
            for (var message : subscriber.inbox().next(3, Duration.ofSeconds(5))) topics.add(message.text());
            assertEquals(new TreeSet<>(List.of("leading slash", "decomposed", "same case")), topics);
            subscriber.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: with No Local a client does not receive its own messages, but does receive others' [MQTT-3.8.3-3]")
    void noLocalSkipsOwnMessages() throws Exception {
        String topic = Names.topic("no-local");
        try (var self = broker.v5(Names.clientId("self"));
             var other = broker.v5(Names.clientId("other"))) {
            var subscription = new MqttSubscription(topic, 1);
            subscription.setNoLocal(true);
            assertEquals(1, self.subscribe(subscription));
            self.publish(topic, "mine", 1, false);
            other.publish(topic, "theirs", 1, false);
            assertEquals("theirs", self.inbox().next().text());
            self.inbox().expectNothing();
        }
    }

    /** The next message on one of the topics, skipping others (for a subscriber to '#'). */
    private static Inbox.Message nextOn(Inbox inbox, Set<String> topics) throws InterruptedException {
        for (int i = 0; i < 1000; i++) {
            var message = inbox.next();
            if (topics.contains(message.topic())) return message;
        }
        throw new AssertionError("no message on " + topics + " among the first 1000");
    }
}
