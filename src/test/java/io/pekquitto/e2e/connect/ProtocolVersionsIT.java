package io.pekquitto.e2e.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.BrokerExtension.Overrides;
import io.pekquitto.e2e.Names;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A listener's {@code protocol-versions}: a CONNECT asking for another version is refused as an unknown
 * version is, CONNACK return code 1 (3.1, 3.1.1) or 0x84 (5), with Paho's v3 and v5 clients; the
 * versions it accepts connect and are served.
 */
@Timeout(30)
class ProtocolVersionsIT {
    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    private int v3Refusal(int mqttVersion) {
        var e = assertThrows(org.eclipse.paho.client.mqttv3.MqttException.class,
                () -> broker.v3(Names.clientId("v3"), options -> options.setMqttVersion(mqttVersion)).close());
        return e.getReasonCode();
    }

    @Test
    @Overrides("listeners = [{host = \"127.0.0.1\", port = 0, protocol-versions = [\"5\"]}]")
    @DisplayName("on a listener of MQTT 5 only, 3.1.1 and 3.1 get return code 1 and MQTT 5 connects")
    void aListenerOfMqtt5Only() throws Exception {
        assertEquals(1, v3Refusal(MqttConnectOptions.MQTT_VERSION_3_1_1));
        assertEquals(1, v3Refusal(MqttConnectOptions.MQTT_VERSION_3_1));
        try (var v5 = broker.v5(Names.clientId("v5"))) {
            var topic = Names.topic("five-only");
            v5.subscribe(topic, 1);
            v5.publish(topic, "served", 1, false);
            assertEquals("served", v5.inbox().next().text());
        }
    }

    @Test
    @Overrides("listeners = [{host = \"127.0.0.1\", port = 0, protocol-versions = [\"3.1\", \"3.1.1\"]}]")
    @DisplayName("on a listener of 3.1 and 3.1.1, MQTT 5 gets CONNACK 0x84 and 3.1.1 connects")
    void aListenerOfMqtt3Only() throws Exception {
        var e = assertThrows(org.eclipse.paho.mqttv5.common.MqttException.class,
                () -> broker.v5(Names.clientId("v5")).close());
        assertEquals(0x84, e.getReasonCode());
        broker.assertServesQos1(4);
    }
}
