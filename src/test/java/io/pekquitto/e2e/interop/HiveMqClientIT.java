package io.pekquitto.e2e.interop;

import static io.pekquitto.e2e.interop.HiveMq.RECEIVE;
import static io.pekquitto.e2e.interop.HiveMq.connectedV3;
import static io.pekquitto.e2e.interop.HiveMq.connectedV5;
import static io.pekquitto.e2e.interop.HiveMq.disconnect;
import static io.pekquitto.e2e.interop.HiveMq.inbox;
import static io.pekquitto.e2e.interop.HiveMq.next;
import static io.pekquitto.e2e.interop.HiveMq.quiet;
import static io.pekquitto.e2e.interop.HiveMq.subscribe;
import static io.pekquitto.e2e.interop.HiveMq.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.Never;
import io.pekquitto.e2e.RawClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HiveMQ MQTT client, an independent Java implementation of both protocol versions, against a
 * 1-shard and a 2-shard broker. On the 2-shard broker, connections are placed round-robin, so two
 * clients connected one after the other are on different shards: every exchange here then crosses
 * the mesh, and a resumed session may come back on the other shard.
 */
class HiveMqClientIT {
    @RegisterExtension
    static final BrokerExtension oneShard = BrokerExtension.inProcess();
    @RegisterExtension
    static final BrokerExtension twoShards = BrokerExtension.inProcess("shards = 2");

    private static int port(int shards) {
        return (shards == 1 ? oneShard : twoShards).port();
    }

    static Stream<Arguments> shardsAndQos() {
        return Stream.of(1, 2).flatMap(shards -> Stream.of(0, 1, 2).map(qos -> Arguments.of(shards, qos)));
    }

    // ---- QoS round trips

    @ParameterizedTest(name = "{0} shard(s), QoS {1}")
    @MethodSource("shardsAndQos")
    @Timeout(20)
    @DisplayName("5.0: HiveMQ to HiveMQ at each QoS, payload bytes unchanged [MQTT-4.3.1-1] [MQTT-4.3.2-2] [MQTT-4.3.3-2 (5.0)] [MQTT-3.8.4-8 (5.0)]")
    void roundTripV5(int shards, int qos) throws Exception {
        String topic = Names.topic("hivemq-v5");
        byte[] payload = new byte[2048];
        new Random(qos).nextBytes(payload);
        Mqtt5BlockingClient subscriber = null;
        Mqtt5BlockingClient publisher = null;
        try {
            subscriber = connectedV5(port(shards), Names.clientId("hsub"));
            publisher = connectedV5(port(shards), Names.clientId("hpub"));
            try (var inbox = inbox(subscriber)) {
                subscribe(subscriber, topic, MqttQos.EXACTLY_ONCE);
                var result = publisher.publishWith().topic(topic).qos(MqttQos.fromCode(qos)).payload(payload).send();
                assertTrue(result.getError().isEmpty(), result::toString);
                var message = next(inbox);
                assertEquals(topic, message.getTopic().toString());
                assertArrayEquals(payload, message.getPayloadAsBytes());
                assertEquals(qos, message.getQos().getCode());
                assertFalse(message.isRetain());
                assertTrue(quiet(inbox).isEmpty(), "a second copy arrived");
            }
        } finally {
            disconnect(subscriber, publisher);
        }
    }

    @ParameterizedTest(name = "{0} shard(s), QoS {1}")
    @MethodSource("shardsAndQos")
    @Timeout(20)
    @DisplayName("3.1.1: HiveMQ to HiveMQ at each QoS, payload bytes unchanged [MQTT-4.3.1-1] [MQTT-4.3.2-2] [MQTT-4.3.3-2] [MQTT-3.8.4-6] (3.1.1)")
    void roundTripV3(int shards, int qos) throws Exception {
        String topic = Names.topic("hivemq-v3");
        byte[] payload = new byte[2048];
        new Random(10 + qos).nextBytes(payload);
        var subscriber = connectedV3(port(shards), Names.clientId("hsub3"));
        var publisher = connectedV3(port(shards), Names.clientId("hpub3"));
        try (var inbox = inbox(subscriber)) {
            subscribe(subscriber, topic, MqttQos.EXACTLY_ONCE);
            publisher.publishWith().topic(topic).qos(MqttQos.fromCode(qos)).payload(payload).send();
            var message = next(inbox);
            assertEquals(topic, message.getTopic().toString());
            assertArrayEquals(payload, message.getPayloadAsBytes());
            assertEquals(qos, message.getQos().getCode());
            assertFalse(message.isRetain());
            assertTrue(quiet(inbox).isEmpty(), "a second copy arrived");
        } finally {
            disconnect(subscriber, publisher);
        }
    }

    // ---- persistent sessions

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(30)
    @DisplayName("5.0: Clean Start 0 with Session Expiry resumes the session: Session Present 1, the QoS 1 messages published while offline arrive in order [MQTT-3.1.2-5 (5.0)] [MQTT-3.2.2-3 (5.0)] [MQTT-4.6.0-5 (5.0)]")
    void persistentSessionV5(int shards) throws Exception {
        String topic = Names.topic("hivemq-session");
        String clientId = Names.clientId("hpersist");
        int count = 20;
        var first = HiveMq.v5(port(shards), clientId);
        first.connectWith().cleanStart(true).sessionExpiryInterval(60).send();
        subscribe(first, topic, MqttQos.AT_LEAST_ONCE);
        first.disconnect();   // normal DISCONNECT: the session stays for 60 s

        Mqtt5BlockingClient publisher = null;
        var resumed = HiveMq.v5(port(shards), clientId);
        try {
            publisher = connectedV5(port(shards), Names.clientId("hpub"));
            for (int i = 0; i < count; i++) {
                publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(bytes("offline " + i)).send();
            }
            try (var inbox = inbox(resumed)) {   // registered before CONNECT: the queue arrives right after CONNACK
                var connAck = resumed.connectWith().cleanStart(false).sessionExpiryInterval(0).send();
                assertTrue(connAck.isSessionPresent(), "Session Present: " + connAck);
                var received = HiveMq.next(inbox, count).stream().map(HiveMq::text).toList();
                assertEquals(IntStream.range(0, count).mapToObj(i -> "offline " + i).toList(), received);
                assertTrue(quiet(inbox).isEmpty(), "more than the queued messages arrived");
            }
        } finally {
            disconnect(resumed, publisher);
        }
    }

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(30)
    @DisplayName("3.1.1: Clean Session 0 keeps the session: Session Present 1, the QoS 1 messages published while offline arrive in order [MQTT-3.1.2-4] [MQTT-3.1.2-5] [MQTT-3.2.2-2] (3.1.1)")
    void persistentSessionV3(int shards) throws Exception {
        String topic = Names.topic("hivemq-session3");
        String clientId = Names.clientId("hpersist3");
        int count = 20;
        var first = HiveMq.v3(port(shards), clientId);
        first.connectWith().cleanSession(false).send();
        subscribe(first, topic, MqttQos.AT_LEAST_ONCE);
        first.disconnect();

        var publisher = connectedV3(port(shards), Names.clientId("hpub3"));
        var resumed = HiveMq.v3(port(shards), clientId);
        try {
            for (int i = 0; i < count; i++) {
                publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(bytes("offline " + i)).send();
            }
            try (var inbox = inbox(resumed)) {
                var connAck = resumed.connectWith().cleanSession(false).send();
                assertTrue(connAck.isSessionPresent(), "Session Present: " + connAck);
                var received = new ArrayList<String>();
                for (int i = 0; i < count; i++) received.add(text(next(inbox)));
                assertEquals(IntStream.range(0, count).mapToObj(i -> "offline " + i).toList(), received);
                assertTrue(quiet(inbox).isEmpty(), "more than the queued messages arrived");
            }
            resumed.disconnect();
            resumed.connectWith().cleanSession(true).send();   // discards the session
        } finally {
            disconnect(resumed, publisher);
        }
    }

    // ---- wills

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("5.0: HiveMQ's DISCONNECT with reason 0x04 (Disconnect with Will Message) publishes its will (3.14.2.1) [MQTT-3.1.2-8]")
    void willOnDisconnectWithWillMessage(int shards) throws Exception {
        String willTopic = Names.topic("hivemq-will");
        var watcher = connectedV5(port(shards), Names.clientId("hwatch"));
        var client = HiveMq.v5(port(shards), Names.clientId("hwill"));
        try (var inbox = inbox(watcher)) {
            subscribe(watcher, willTopic, MqttQos.AT_LEAST_ONCE);
            client.connectWith().cleanStart(true).willPublish().topic(willTopic).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(bytes("gone")).applyWillPublish().send();
            client.disconnectWith().reasonCode(Mqtt5DisconnectReasonCode.DISCONNECT_WITH_WILL_MESSAGE).send();
            var will = next(inbox);
            assertEquals(willTopic, will.getTopic().toString());
            assertEquals("gone", text(will));
            assertEquals(MqttQos.AT_LEAST_ONCE, will.getQos());
        } finally {
            disconnect(watcher, client);
        }
    }

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("5.0: HiveMQ's normal DISCONNECT (0x00) discards its will [MQTT-3.1.2-10] [MQTT-3.14.4-3]")
    void noWillOnNormalDisconnect(int shards) throws Exception {
        String willTopic = Names.topic("hivemq-nowill");
        var watcher = connectedV5(port(shards), Names.clientId("hwatch"));
        var client = HiveMq.v5(port(shards), Names.clientId("hwill"));
        try (var inbox = inbox(watcher)) {
            subscribe(watcher, willTopic, MqttQos.AT_LEAST_ONCE);
            client.connectWith().cleanStart(true).willPublish().topic(willTopic).qos(MqttQos.AT_LEAST_ONCE)
                    .payload(bytes("must not be sent")).applyWillPublish().send();
            client.disconnect();
            assertTrue(quiet(inbox).isEmpty(), "the will was published after a normal DISCONNECT");
        } finally {
            disconnect(watcher, client);
        }
    }

    static Stream<Arguments> shardsAndVersion() {
        return Stream.of(1, 2).flatMap(shards -> Stream.of(RawClient.V311, RawClient.V5).map(v -> Arguments.of(shards, v)));
    }

    @ParameterizedTest(name = "{0} shard(s), protocol level {1}")
    @MethodSource("shardsAndVersion")
    @Timeout(20)
    @DisplayName("a connection closed without DISCONNECT (raw socket) has its will delivered to a HiveMQ subscriber [MQTT-3.1.2-8]")
    void willOnAbruptClose(int shards, int version) throws Exception {
        String willTopic = Names.topic("hivemq-abrupt");
        var watcher = connectedV5(port(shards), Names.clientId("hwatch"));
        try (var inbox = inbox(watcher)) {
            subscribe(watcher, willTopic, MqttQos.AT_LEAST_ONCE);
            var will = new RawClient.Will(willTopic, bytes("lost"), 1, false);
            var raw = RawClient.connected(port(shards), RawClient.Connect.of(version, Names.clientId("rawwill")).withWill(will));
            raw.close();   // no DISCONNECT: to the server the network failed
            var message = next(inbox);
            assertEquals(willTopic, message.getTopic().toString());
            assertEquals("lost", text(message));
            assertEquals(MqttQos.AT_LEAST_ONCE, message.getQos());
        } finally {
            disconnect(watcher);
        }
    }

    // ---- retained messages

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("5.0: a retained message is replayed to a new HiveMQ subscriber with RETAIN 1; an empty retained message clears it [MQTT-3.3.1-5] [MQTT-3.3.1-6] [MQTT-3.3.1-7] [MQTT-3.3.1-9] (5.0)")
    void retainedV5(int shards) throws Exception {
        String topic = Names.topic("hivemq-retained");
        var publisher = connectedV5(port(shards), Names.clientId("hpub"));
        Mqtt5BlockingClient late = null;
        Mqtt5BlockingClient later = null;
        try {
            publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("kept")).send();
            late = connectedV5(port(shards), Names.clientId("hlate"));
            try (var inbox = inbox(late)) {
                subscribe(late, topic, MqttQos.AT_LEAST_ONCE);
                var replayed = next(inbox);
                assertEquals("kept", text(replayed));
                assertTrue(replayed.isRetain(), "RETAIN flag of a replayed retained message");
                assertEquals(MqttQos.AT_LEAST_ONCE, replayed.getQos());
            }
            publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(new byte[0]).send();
            later = connectedV5(port(shards), Names.clientId("hlater"));
            try (var inbox = inbox(later)) {
                subscribe(later, topic, MqttQos.AT_LEAST_ONCE);
                assertTrue(quiet(inbox).isEmpty(), "a cleared retained message was replayed");
            }
        } finally {
            disconnect(publisher, late, later);
        }
    }

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("3.1.1: a retained message is replayed to a new HiveMQ subscriber with RETAIN 1; an empty retained message clears it [MQTT-3.3.1-5] [MQTT-3.3.1-8] [MQTT-3.3.1-10] [MQTT-3.3.1-11] (3.1.1)")
    void retainedV3(int shards) throws Exception {
        String topic = Names.topic("hivemq-retained3");
        var publisher = connectedV3(port(shards), Names.clientId("hpub3"));
        var late = connectedV3(port(shards), Names.clientId("hlate3"));
        var later = connectedV3(port(shards), Names.clientId("hlater3"));
        try {
            publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(bytes("kept")).send();
            try (var inbox = inbox(late)) {
                subscribe(late, topic, MqttQos.AT_LEAST_ONCE);
                var replayed = next(inbox);
                assertEquals("kept", text(replayed));
                assertTrue(replayed.isRetain(), "RETAIN flag of a replayed retained message");
            }
            publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).retain(true).payload(new byte[0]).send();
            try (var inbox = inbox(later)) {
                subscribe(later, topic, MqttQos.AT_LEAST_ONCE);
                assertTrue(quiet(inbox).isEmpty(), "a cleared retained message was replayed");
            }
        } finally {
            disconnect(publisher, late, later);
        }
    }

    // ---- shared subscriptions

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(40)
    @DisplayName("5.0: two HiveMQ subscribers of $share/g/t each get some, together all of 200 QoS 1 messages, each exactly once (4.8.2)")
    void sharedSubscription(int shards) throws Exception {
        String topic = Names.topic("hivemq-shared");
        String group = "g" + Names.clientId("grp").replace('-', '_');
        int count = 200;
        var first = new ConcurrentLinkedQueue<String>();
        var second = new ConcurrentLinkedQueue<String>();
        var a = connectedV5(port(shards), Names.clientId("hshareA"));
        var b = connectedV5(port(shards), Names.clientId("hshareB"));
        var publisher = connectedV5(port(shards), Names.clientId("hpub"));
        try {
            a.toAsync().subscribeWith().topicFilter("$share/" + group + "/" + topic).qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> first.add(text(p))).send().get(5, TimeUnit.SECONDS);
            b.toAsync().subscribeWith().topicFilter("$share/" + group + "/" + topic).qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> second.add(text(p))).send().get(5, TimeUnit.SECONDS);
            var sent = new ArrayList<CompletableFuture<?>>();
            for (int i = 0; i < count; i++) {
                sent.add(publisher.toAsync().publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(bytes("m" + i)).send());
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            Eventually.await(Duration.ofSeconds(15), () -> count + " messages across the two (first " + first.size()
                    + ", second " + second.size() + ")", () -> first.size() + second.size() >= count);
            Never.within(HiveMq.QUIET, "a message given twice", () -> first.size() + second.size() > count);
            var all = new ArrayList<String>(first);
            all.addAll(second);
            assertFalse(first.isEmpty(), "the first subscriber got none");
            assertFalse(second.isEmpty(), "the second subscriber got none");
            Set<String> distinct = new HashSet<>(all);
            assertEquals(IntStream.range(0, count).mapToObj(i -> "m" + i).collect(Collectors.toSet()),
                    distinct, "together all messages");
            assertEquals(count, all.size(), "each exactly once (first " + first.size() + ", second " + second.size() + ")");
        } finally {
            disconnect(a, b, publisher);
        }
    }

    // ---- topic aliases

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(30)
    @DisplayName("5.0: HiveMQ publishing through topic aliases to a HiveMQ subscriber that allows 10: 15 topics, each message under its own topic [MQTT-3.3.2-12] [MQTT-3.1.2-26] [MQTT-3.3.2-10]")
    void topicAliases(int shards) throws Exception {
        String root = Names.topic("hivemq-alias");
        int topics = 15;   // more than either side's alias maximum: aliases are replaced, not only assigned
        int rounds = 4;
        var subscriber = HiveMq.v5(port(shards), Names.clientId("halias"));
        Mqtt5BlockingClient publisher = null;
        try {
            subscriber.connectWith().cleanStart(true).restrictions().topicAliasMaximum(10).applyRestrictions().send();
            publisher = HiveMq.v5(port(shards), Names.clientId("hpub"));
            publisher.connectWith().cleanStart(true).restrictions().sendTopicAliasMaximum(8).applyRestrictions().send();
            int allowed = publisher.getConfig().getConnectionConfig().orElseThrow().getRestrictionsForClient().getSendTopicAliasMaximum();
            assertTrue(allowed > 0, "the broker allows topic aliases (Topic Alias Maximum in CONNACK), got " + allowed);
            try (var inbox = inbox(subscriber)) {
                subscribe(subscriber, root + "/#", MqttQos.AT_LEAST_ONCE);
                var expected = new ArrayList<String>();
                for (int round = 0; round < rounds; round++) {
                    for (int t = 0; t < topics; t++) {
                        String topic = root + "/level-" + t + "/" + "x".repeat(t);
                        String payload = "round " + round + " topic " + t;
                        publisher.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(bytes(payload)).send();
                        expected.add(topic + " " + payload);
                    }
                }
                var received = HiveMq.next(inbox, expected.size()).stream()
                        .map(p -> p.getTopic() + " " + text(p)).toList();
                assertEquals(expected, received);
            }
        } finally {
            disconnect(subscriber, publisher);
        }
    }

    // ---- subscription identifiers

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("5.0: HiveMQ's own subscription identifiers route one message to both of two overlapping subscriptions, once each [MQTT-3.3.4-3] [MQTT-3.3.4-4] [MQTT-3.3.4-5]")
    void overlappingSubscriptionsWithHiveMqIdentifiers(int shards) throws Exception {
        String root = Names.topic("hivemq-subid");
        var byHash = new ConcurrentLinkedQueue<String>();
        var byPlus = new ConcurrentLinkedQueue<String>();
        var subscriber = connectedV5(port(shards), Names.clientId("hsubid"));
        var publisher = connectedV5(port(shards), Names.clientId("hpub"));
        try {
            assertTrue(subscriber.getConfig().getConnectionConfig().orElseThrow().getRestrictionsForClient()
                    .areSubscriptionIdentifiersAvailable(), "Subscription Identifiers Available");
            // Two SUBSCRIBE packets: the HiveMQ client gives each its own Subscription Identifier and
            // hands a PUBLISH to the callbacks whose identifiers it carries.
            subscriber.toAsync().subscribeWith().topicFilter(root + "/#").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> byHash.add(text(p))).send().get(5, TimeUnit.SECONDS);
            subscriber.toAsync().subscribeWith().topicFilter(root + "/+").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(p -> byPlus.add(text(p))).send().get(5, TimeUnit.SECONDS);
            publisher.publishWith().topic(root + "/both").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("both")).send();
            publisher.publishWith().topic(root + "/deep/only-hash").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("hash")).send();
            Eventually.await(RECEIVE, () -> "two messages by # and one by +: " + byHash + ", " + byPlus,
                    () -> byHash.size() >= 2 && !byPlus.isEmpty());
            Never.within(HiveMq.QUIET, "a message more", () -> byHash.size() > 2 || byPlus.size() > 1);
            assertEquals(List.of("both", "hash"), List.copyOf(byHash));
            assertEquals(List.of("both"), List.copyOf(byPlus));
        } finally {
            disconnect(subscriber, publisher);
        }
    }

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    @Timeout(20)
    @DisplayName("5.0: a HiveMQ message matching two subscriptions with identifiers 7 and 9 reaches a raw subscriber carrying both identifiers [MQTT-3.3.4-3] [MQTT-3.3.4-4] [MQTT-3.3.4-5]")
    void subscriptionIdentifiersInThePublish(int shards) throws Exception {
        String root = Names.topic("hivemq-subid-raw");
        var publisher = connectedV5(port(shards), Names.clientId("hpub"));
        try (var raw = RawClient.connected(port(shards), RawClient.Connect.of(RawClient.V5, Names.clientId("rawsubid")))) {
            raw.send(SubscriptionIdentifiers.subscribe(1, root + "/#", 1, 7));
            raw.expect(RawClient.SUBACK);
            raw.send(SubscriptionIdentifiers.subscribe(2, root + "/+", 1, 9));
            raw.expect(RawClient.SUBACK);

            publisher.publishWith().topic(root + "/both").qos(MqttQos.AT_LEAST_ONCE).payload(bytes("both")).send();
            var identifiers = new ArrayList<Integer>();
            // One PUBLISH with both identifiers, or one PUBLISH per subscription with its own.
            for (int copies = 0; copies < 2 && !identifiers.containsAll(List.of(7, 9)); copies++) {
                var packet = raw.expect(RawClient.PUBLISH);
                var publish = packet.publish(RawClient.V5);
                assertEquals("both", publish.payloadText());
                if (publish.qos() > 0) raw.send(RawClient.ack(RawClient.PUBACK, publish.packetId()));
                identifiers.addAll(SubscriptionIdentifiers.in(packet.body(), publish.qos()));
            }
            identifiers.sort(null);
            assertEquals(List.of(7, 9), identifiers, "Subscription Identifiers of the delivered PUBLISH(es)");
            raw.expectSilence(HiveMq.QUIET);

        } finally {
            disconnect(publisher);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
