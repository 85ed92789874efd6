package io.pekquitto.e2e.will;

import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient.Will;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Will Messages (3.1.2.5 - 3.1.2.7, 3.14.4). The will owner is the raw client, so the test decides
 * exactly whether a DISCONNECT is sent; MQTT 5 wills here have no Will Delay Interval and the session
 * no expiry, so the will is due as soon as the connection ends. The Will Delay Interval is a timer:
 * ShardTimersTest checks it under a manual clock, so no test here waits for it.
 */
class WillIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    private static Connect withWill(int version, String topic, boolean retain) {
        var will = new Will(topic, "gone".getBytes(StandardCharsets.UTF_8), 1, retain);
        return Connect.of(version, Names.clientId("mortal")).withWill(will);
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("the will is published when the connection closes without DISCONNECT [MQTT-3.1.2-8] [MQTT-3.1.2-16 (3.1.1)] [MQTT-3.1.2-14 (5.0)]")
    void willIsPublishedWhenTheSocketCloses(int version) throws Exception {
        String topic = Names.topic("will");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            var mortal = broker.raw(withWill(version, topic, false));
            mortal.close();   // no DISCONNECT: to the server the network failed
            var will = watcher.inbox().next();
            assertEquals(topic, will.topic());
            assertEquals("gone", will.text());
            assertEquals(1, will.qos());
            assertFalse(will.retained(), "published as a non-retained message");
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("Paho's forced disconnect without DISCONNECT publishes the will [MQTT-3.1.2-8]")
    void willIsPublishedWhenPahoDropsTheConnection(int version) throws Exception {
        String topic = Names.topic("paho-will");
        byte[] payload = "paho gone".getBytes(StandardCharsets.UTF_8);
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            PahoClient mortal = version == V311
                    ? broker.v3(Names.clientId("paho3"), options -> options.setWill(topic, payload, 1, false))
                    : broker.v5(Names.clientId("paho5"), options -> options.setWill(topic, new MqttMessage(payload, 1, false, new MqttProperties())));
            try (mortal) {
                mortal.dropConnection();
            }
            assertEquals("paho gone", watcher.inbox().next().text());
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a normal DISCONNECT discards the will [MQTT-3.1.2-10] [MQTT-3.14.4-3]")
    void normalDisconnectDiscardsTheWill(int version) throws Exception {
        String topic = Names.topic("no-will");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            var publisher = broker.publishers().get(version);
            watcher.subscribe(topic, 1);
            try (var mortal = broker.raw(withWill(version, topic, false))) {
                mortal.send(RawClient.disconnect(version, 0x00));
                mortal.expectClosed(Duration.ofSeconds(5));
            }
            // A will would have been routed when the connection ended, before this marker was published.
            publisher.publish(topic, "marker", 1, false);
            assertEquals("marker", watcher.inbox().next().text());
            watcher.inbox().expectNothing();
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("the will is published when the server closes the connection for a Keep Alive timeout (3.1.2.5) [MQTT-3.1.2-8]")
    void willIsPublishedAfterKeepAliveTimeout(int version) throws Exception {
        String topic = Names.topic("will-keepalive");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = broker.raw(withWill(version, topic, false).withKeepAlive(1))) {
                var will = watcher.inbox().next(Duration.ofSeconds(5));   // silent: closed after 1.5 s
                assertEquals("gone", will.text());
                if (version == V5) mortal.expectDisconnect(0x8D, Duration.ofSeconds(1));
                else mortal.expectClosed(Duration.ofSeconds(1));
            }
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("the will is published when the server closes the connection for a malformed packet (3.1.2.5) [MQTT-3.1.2-8]")
    void willIsPublishedAfterAProtocolError(int version) throws Exception {
        String topic = Names.topic("will-malformed");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = broker.raw(withWill(version, topic, false))) {
                mortal.send(new byte[] {0x36, 0x00});   // PUBLISH with QoS 3 [MQTT-3.3.1-4]
                if (version == V5) mortal.expectDisconnect(0x81, Duration.ofSeconds(5));
                else mortal.expectClosed(Duration.ofSeconds(5));
                assertEquals("gone", watcher.inbox().next().text());
            }
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("3.1.1: a takeover closes the old connection without DISCONNECT, so its will is published [MQTT-3.1.4-2] [MQTT-3.1.2-8]")
    void takeoverPublishesTheOldConnectionsWillIn311() throws Exception {
        String topic = Names.topic("will-takeover");
        var connect = withWill(V311, topic, false);
        try (var watcher = broker.v3(Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var old = broker.raw(connect);
                 var replacement = broker.raw(Connect.of(V311, connect.clientId()))) {
                old.expectClosed(Duration.ofSeconds(5));
                assertEquals("gone", watcher.inbox().next().text());
                replacement.send(RawClient.pingReq());
                replacement.expect(RawClient.PINGRESP);
            }
        }
    }

    @Test
    @Timeout(15)
    @DisplayName("5.0: DISCONNECT with reason 0x04 (Disconnect with Will Message) publishes the will (3.14.2.1) [MQTT-3.1.2-8]")
    void disconnectWithWillMessagePublishesTheWill() throws Exception {
        String topic = Names.topic("will-04");
        try (var watcher = broker.v5(Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = broker.raw(withWill(V5, topic, false))) {
                mortal.send(RawClient.disconnect(V5, 0x04));
                mortal.expectClosed(Duration.ofSeconds(5));
            }
            assertEquals("gone", watcher.inbox().next().text());
        }
    }

    /** A 5.0 CONNECT whose will ("delayed", QoS 1) has a Will Delay Interval of 2 s, in a session that outlives it (10 s). */
    @Test
    @Timeout(15)
    @DisplayName("5.0: the will is published with its PUBLISH-valid Will Properties (user properties in order) and without the Will Delay Interval (Table 2-4, 3.1.3.2) [MQTT-3.1.3-10]")
    void willPropertiesBecomePublishProperties() throws Exception {
        String topic = Names.topic("will-properties");
        byte[] willProperties = new RawClient.Bytes()
                .u8(0x18).u32(0)                                // Will Delay Interval 0: a Will Property only
                .u8(0x01).u8(1)                                 // Payload Format Indicator: UTF-8
                .u8(0x03).string("text/plain")                  // Content Type
                .u8(0x26).string("k").string("v1")              // User Property k=v1
                .u8(0x26).string("k").string("v2")              // User Property k=v2
                .toByteArray();
        try (var watcher = broker.raw(Connect.of(V5, Names.clientId("watch")))) {
            watcher.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            watcher.expect(SUBACK);
            var will = new Will(topic, "bye".getBytes(StandardCharsets.UTF_8), 1, false, willProperties);
            broker.raw(Connect.of(V5, Names.clientId("props")).withWill(will)).close();
            var publish = watcher.expect(PUBLISH).publish(V5);
            assertEquals("bye", publish.payloadText());
            assertFalse(publish.properties().containsKey(0x18),
                    "Will Delay Interval (0x18) is not a PUBLISH property: the PUBLISH is malformed " + publish.properties());
            assertEquals(1, publish.properties().get(0x01));
            assertEquals("text/plain", publish.properties().get(0x03));
            @SuppressWarnings("unchecked")
            var userProperties = (List<String[]>) publish.properties().get(0x26);
            assertEquals("k=v1,k=v2", String.join(",", userProperties.stream().map(p -> p[0] + "=" + p[1]).toList()));
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a will with Will Retain 1 is published as a retained message [MQTT-3.1.2-17 (3.1.1)] [MQTT-3.1.2-15 (5.0)]")
    void retainedWillIsRetained(int version) throws Exception {
        String topic = Names.topic("retained-will");
        try (var watcher = broker.paho(version, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            broker.raw(withWill(version, topic, true)).close();
            assertEquals("gone", watcher.inbox().next().text());   // published: now it must be retained
        }
        try (var latecomer = broker.paho(version, Names.clientId("late"))) {
            latecomer.subscribe(topic, 1);
            var will = latecomer.inbox().next();
            assertEquals("gone", will.text());
            assertTrue(will.retained());
        }
    }
}
