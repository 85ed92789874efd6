package io.pekquitto.e2e.publish;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBCOMP;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.PUBREL;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.eclipse.paho.mqttv5.common.packet.UserProperty;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** PUBLISH delivery: the three QoS levels, ordering, QoS downgrade, MQTT 5 properties and topic aliases (3.3, 4.3, 4.6). */
class PublishIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @ParameterizedTest(name = "protocol level {0}, QoS {1}")
    @CsvSource({"4,0", "4,1", "4,2", "5,0", "5,1", "5,2"})
    @Timeout(15)
    @DisplayName("a message goes from one client to another at its QoS with the payload bytes unchanged [MQTT-4.3.1-1] [MQTT-4.3.2-2] [MQTT-4.3.3-2 (5.0)]")
    void roundTrip(int version, int qos) throws Exception {
        String topic = Names.topic("round-trip");
        byte[] payload = new byte[1024];
        new Random(42).nextBytes(payload);  // every byte value, zero and 0xFF included
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(2, subscriber.subscribe(topic, 2));
            publisher.publish(topic, payload, qos, false);
            var message = subscriber.inbox().next();
            assertEquals(topic, message.topic());
            assertArrayEquals(payload, message.payload());
            assertEquals(qos, message.qos());
            assertFalse(message.retained());
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}, QoS {1}")
    @CsvSource({"4,1", "4,2", "5,1", "5,2"})
    @Timeout(30)
    @DisplayName("100 messages arrive exactly once and in the order published [MQTT-4.6.0-6 (3.1.1)] [MQTT-4.6.0-5 (5.0)] [MQTT-4.3.3-10 (5.0)] [MQTT-4.4.0-1 (5.0)]")
    void hundredMessagesArriveOnceInOrder(int version, int qos) throws Exception {
        String topic = Names.topic("ordered");
        int count = 100;
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(qos, subscriber.subscribe(topic, qos));
            for (int i = 0; i < count; i++) publisher.publish(topic, Integer.toString(i), qos, false);
            var received = subscriber.inbox().next(count, Duration.ofSeconds(20));
            var expected = IntStream.range(0, count).mapToObj(Integer::toString).toList();
            assertEquals(expected, received.stream().map(Inbox.Message::text).toList());
            assertTrue(received.stream().allMatch(m -> m.qos() == qos), "all at QoS " + qos);
            // No resend on a healthy connection (5.0: [MQTT-4.4.0-1]); QoS 2 never duplicates.
            subscriber.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}: subscribed at QoS {1}, published at QoS {2}, delivered at QoS {3}")
    @CsvSource({"4,1,2,1", "4,2,1,1", "4,0,2,0", "5,1,2,1", "5,2,1,1", "5,0,2,0"})
    @Timeout(15)
    @DisplayName("a message is delivered at the lower of its QoS and the subscription's [MQTT-3.8.4-6 (3.1.1)] [MQTT-3.8.4-8 (5.0)]")
    void deliveryQosIsTheMinimumOfPublishAndSubscription(int version, int subscribed, int published, int delivered) throws Exception {
        String topic = Names.topic("downgrade");
        try (var subscriber = broker.paho(version, Names.clientId("sub"))) {
            var publisher = broker.publishers().get(version);
            assertEquals(subscribed, subscriber.subscribe(topic, subscribed));
            publisher.publish(topic, "downgrade", published, false);
            var message = subscriber.inbox().next();
            assertEquals("downgrade", message.text());
            assertEquals(delivered, message.qos());
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: user properties (in order), content type, response topic, correlation data and payload format arrive unaltered [MQTT-3.3.2-4] [MQTT-3.3.2-15] [MQTT-3.3.2-16] [MQTT-3.3.2-17] [MQTT-3.3.2-18] [MQTT-3.3.2-20]")
    void propertiesArriveUnaltered() throws Exception {
        String topic = Names.topic("properties");
        var userProperties = List.of(new UserProperty("k1", "v1"), new UserProperty("k2", "v2"),
                new UserProperty("k1", "v3"));   // a repeated key is allowed, and the order kept
        byte[] correlation = {0, 1, 2, (byte) 0xFE, (byte) 0xFF};
        try (var subscriber = broker.v5(Names.clientId("sub"))) {
            var publisher = broker.publishers().v5();
            assertEquals(1, subscriber.subscribe(topic, 1));
            var properties = new MqttProperties();
            properties.setUserProperties(userProperties);
            properties.setContentType("application/json; charset=utf-8");
            properties.setResponseTopic("e2e/replies/näme");
            properties.setCorrelationData(correlation);
            properties.setPayloadFormat(true);
            var message = new MqttMessage("{\"ok\":true}".getBytes(StandardCharsets.UTF_8), 1, false, properties);
            publisher.publish(topic, message);

            var received = subscriber.inbox().next().properties();
            assertEquals(userProperties, received.getUserProperties());
            assertEquals("application/json; charset=utf-8", received.getContentType());
            assertEquals("e2e/replies/näme", received.getResponseTopic());
            assertArrayEquals(correlation, received.getCorrelationData());
            assertTrue(received.getPayloadFormat());
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: Paho publishing through topic aliases (the broker allows them) is delivered under the full topic name [MQTT-3.3.2-12]")
    void pahoTopicAliasesAreResolved() throws Exception {
        String topic = Names.topic("paho-alias");
        try (var subscriber = broker.v5(Names.clientId("sub"))) {
            var publisher = broker.publishers().v5();
            Integer aliasMaximum = publisher.connAckProperties().getTopicAliasMaximum();
            assertNotNull(aliasMaximum, "the broker announces a Topic Alias Maximum (default 10)");
            assertTrue(aliasMaximum > 0);
            assertEquals(1, subscriber.subscribe(topic, 1));
            // Paho sends the first PUBLISH with topic and alias, the next ones with the alias only.
            for (int i = 0; i < 3; i++) publisher.publish(topic, "aliased " + i, 1, false);
            var received = subscriber.inbox().next(3, Duration.ofSeconds(5));
            for (int i = 0; i < 3; i++) {
                assertEquals(topic, received.get(i).topic());
                assertEquals("aliased " + i, received.get(i).text());
            }
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: a raw PUBLISH with an empty topic and an established alias is delivered under the full topic, without the alias [MQTT-3.3.2-12] [MQTT-3.1.2-27]")
    void rawTopicAliasIsResolved() throws Exception {
        String topic = Names.topic("raw-alias");
        byte[] alias1 = new RawClient.Bytes().u8(0x23).u16(1).toByteArray();  // Topic Alias = 1
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")));
             var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            // The subscriber sends no Topic Alias Maximum: the server must not send it aliases.
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            assertEquals(List.of(1), subscriber.expect(SUBACK).ackReasons(V5));

            publisher.send(RawClient.publish(V5, topic, 1, false, 1, alias1, bytes("first")));   // sets alias 1
            assertEquals(1, publisher.expect(PUBACK).packetId());
            publisher.send(RawClient.publish(V5, "", 1, false, 2, alias1, bytes("second")));     // uses alias 1
            assertEquals(2, publisher.expect(PUBACK).packetId());

            for (String expected : List.of("first", "second")) {
                var publish = subscriber.expect(PUBLISH).publish(V5);
                assertEquals(topic, publish.topic());
                assertEquals(expected, publish.payloadText());
                assertFalse(publish.properties().containsKey(0x23), "no Topic Alias towards this subscriber");
                subscriber.send(RawClient.ack(PUBACK, publish.packetId()));
            }
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: topic aliases the server sends stay within the client's Topic Alias Maximum and always resolve [MQTT-3.1.2-26] [MQTT-3.3.2-10]")
    void outboundTopicAliasesStayWithinTheClientsMaximum() throws Exception {
        String root = Names.topic("out-alias");
        byte[] aliasMaximum2 = new RawClient.Bytes().u8(0x22).u16(2).toByteArray();   // Topic Alias Maximum = 2
        var published = new LinkedHashMap<String, List<String>>();
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")).withProperties(aliasMaximum2))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(root + "/#", 1)));
            subscriber.expect(SUBACK);
            var publisher = broker.publishers().v5();
            for (int round = 0; round < 3; round++) {
                for (String level : List.of("a", "b", "c", "d")) {
                    String payload = level + round;
                    published.computeIfAbsent(root + "/" + level, t -> new ArrayList<>()).add(payload);
                    publisher.publish(root + "/" + level, payload, 1, false);
                }
            }
            var aliases = new HashMap<Integer, String>();
            var received = new LinkedHashMap<String, List<String>>();
            for (int i = 0; i < 12; i++) {
                var publish = subscriber.expect(PUBLISH).publish(V5);
                String topic = publish.topic();
                var alias = (Long) publish.properties().get(0x23);
                if (alias != null) {
                    assertTrue(alias >= 1 && alias <= 2, "Topic Alias " + alias + " outside 1..2");
                    if (topic.isEmpty()) {
                        topic = aliases.get(alias.intValue());
                        assertNotNull(topic, "alias " + alias + " used before it was set");
                    } else {
                        aliases.put(alias.intValue(), topic);
                    }
                } else {
                    assertFalse(topic.isEmpty(), "an empty Topic Name without a Topic Alias");
                }
                received.computeIfAbsent(topic, t -> new ArrayList<>()).add(publish.payloadText());
                subscriber.send(RawClient.ack(PUBACK, publish.packetId()));
            }
            assertEquals(published, received);
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a QoS 2 PUBLISH sent again (DUP 1) before PUBREL is acknowledged but delivered once; after PUBCOMP the packet id is new [MQTT-4.3.3-2 (3.1.1)] [MQTT-4.3.3-10] [MQTT-4.3.3-12] (5.0)")
    void qos2ResendIsDeliveredOnce(int version) throws Exception {
        String topic = Names.topic("qos2-once");
        try (var subscriber = broker.paho(version, Names.clientId("sub"));
             var publisher = broker.raw(Connect.of(version, Names.clientId("pub")))) {
            assertEquals(2, subscriber.subscribe(topic, 2));
            byte[] publish = RawClient.publish(version, topic, 2, 5, "exactly once");
            publisher.send(publish);
            assertEquals(5, publisher.expect(PUBREC).packetId());
            byte[] resend = publish.clone();
            resend[0] |= 0x08;                                          // DUP 1, same packet id 5
            publisher.send(resend);
            assertEquals(5, publisher.expect(PUBREC).packetId());
            publisher.send(RawClient.ack(PUBREL, 5));
            assertEquals(5, publisher.expect(PUBCOMP).packetId());
            assertEquals("exactly once", subscriber.inbox().next().text());

            publisher.send(RawClient.publish(version, topic, 2, 5, "a new message"));   // id 5 is free again
            assertEquals(5, publisher.expect(PUBREC).packetId());
            publisher.send(RawClient.ack(PUBREL, 5));
            assertEquals(5, publisher.expect(PUBCOMP).packetId());
            assertEquals("a new message", subscriber.inbox().next().text());
            subscriber.inbox().expectNothing();
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: the server sends no more unacknowledged QoS 1 PUBLISHes than the client's Receive Maximum [MQTT-3.3.4-9] [MQTT-4.9.0-2]")
    void serverRespectsTheClientsReceiveMaximum() throws Exception {
        String topic = Names.topic("receive-max");
        byte[] receiveMaximum2 = new RawClient.Bytes().u8(0x21).u16(2).toByteArray();   // Receive Maximum = 2
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")).withProperties(receiveMaximum2))) {
            var publisher = broker.publishers().v5();
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            subscriber.expect(SUBACK);
            for (int i = 0; i < 5; i++) publisher.publish(topic, "m" + i, 1, false);

            var inFlight = new ArrayDeque<RawClient.Publish>();
            var received = new ArrayList<String>();
            for (int i = 0; i < 2; i++) inFlight.add(subscriber.expect(PUBLISH).publish(V5));
            subscriber.expectSilence(Duration.ofMillis(300));   // the quota is used up
            for (int loops = 0; loops < 10 && received.size() < 5; loops++) {
                var acked = inFlight.poll();
                if (acked == null) break;
                received.add(acked.payloadText());
                subscriber.send(RawClient.ack(PUBACK, acked.packetId()));   // one more may now come
                if (received.size() + inFlight.size() < 5) inFlight.add(subscriber.expect(PUBLISH).publish(V5));
            }
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), received);
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: a PUBLISH larger than the client's Maximum Packet Size is discarded, later ones still arrive [MQTT-3.1.2-24] [MQTT-3.1.2-25]")
    void serverRespectsTheClientsMaximumPacketSize() throws Exception {
        String topic = Names.topic("max-size");
        byte[] maximumPacketSize = new RawClient.Bytes().u8(0x27).u32(100).toByteArray();   // Maximum Packet Size = 100
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")).withProperties(maximumPacketSize))) {
            var publisher = broker.publishers().v5();
            subscriber.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            subscriber.expect(SUBACK);
            publisher.publish(topic, "x".repeat(200), 1, false);
            publisher.publish(topic, "small", 1, false);
            var packet = subscriber.expect(PUBLISH);
            assertEquals("small", packet.publish(V5).payloadText(), "the oversized message is not sent");
            assertTrue(packet.body().length + 2 <= 100);
            subscriber.send(RawClient.ack(PUBACK, packet.publish(V5).packetId()));
            subscriber.expectSilence(Duration.ofMillis(300));
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
