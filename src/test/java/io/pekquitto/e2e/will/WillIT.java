package io.pekquitto.e2e.will;

import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.Publishers;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Will;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.BrokerSettings;
import io.pekquitto.shards.ListenerSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Will Messages (3.1.2.5 - 3.1.2.7, 3.14.4). The will owner is the raw client, so the test decides
 * exactly whether a DISCONNECT is sent; MQTT 5 wills here have no Will Delay Interval and the session
 * no expiry, so the will is due as soon as the connection ends.
 */
class WillIT {
    private static Pekquitto broker;
    private static int port;
    private static Publishers publishers;

    @BeforeAll
    static void startBroker() {
        broker = Pekquitto.start(BrokerSettings.defaults(new ListenerSettings("127.0.0.1", 0)));
        port = broker.port();
        publishers = new Publishers(port);
    }

    @AfterAll
    static void stopBroker() {
        if (publishers != null) publishers.close();
        if (broker != null) broker.close();
    }

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
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            var mortal = RawClient.connected(port, withWill(version, topic, false));
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
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            PahoClient mortal = version == V311
                    ? V3Client.connect(port, Names.clientId("paho3"), options -> options.setWill(topic, payload, 1, false))
                    : V5Client.connect(port, Names.clientId("paho5"), options -> options.setWill(topic, new MqttMessage(payload, 1, false, new MqttProperties())));
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
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            var publisher = publishers.get(version);
            watcher.subscribe(topic, 1);
            try (var mortal = RawClient.connected(port, withWill(version, topic, false))) {
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
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = RawClient.connected(port, withWill(version, topic, false).withKeepAlive(1))) {
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
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = RawClient.connected(port, withWill(version, topic, false))) {
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
        try (var watcher = V3Client.connect(port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var old = RawClient.connected(port, connect);
                 var replacement = RawClient.connected(port, Connect.of(V311, connect.clientId()))) {
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
        try (var watcher = V5Client.connect(port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            try (var mortal = RawClient.connected(port, withWill(V5, topic, false))) {
                mortal.send(RawClient.disconnect(V5, 0x04));
                mortal.expectClosed(Duration.ofSeconds(5));
            }
            assertEquals("gone", watcher.inbox().next().text());
        }
    }

    @ParameterizedTest(name = "protocol level {0}")
    @ValueSource(ints = {V311, V5})
    @Timeout(15)
    @DisplayName("a will with Will Retain 1 is published as a retained message [MQTT-3.1.2-17 (3.1.1)] [MQTT-3.1.2-15 (5.0)]")
    void retainedWillIsRetained(int version) throws Exception {
        String topic = Names.topic("retained-will");
        try (var watcher = PahoClient.connect(version, port, Names.clientId("watch"))) {
            watcher.subscribe(topic, 1);
            RawClient.connected(port, withWill(version, topic, true)).close();
            assertEquals("gone", watcher.inbox().next().text());   // published: now it must be retained
        }
        try (var latecomer = PahoClient.connect(version, port, Names.clientId("late"))) {
            latecomer.subscribe(topic, 1);
            var will = latecomer.inbox().next();
            assertEquals("gone", will.text());
            assertTrue(will.retained());
        }
    }
}
