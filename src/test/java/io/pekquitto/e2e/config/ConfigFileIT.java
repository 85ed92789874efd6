package io.pekquitto.e2e.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The runnable jar started with a {@code -c} file, as {@link BrokerExtension#runnableJar} does it. */
class ConfigFileIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.runnableJar("max-qos = 1");

    @Test
    @Timeout(15)
    @DisplayName("max-qos = 1 in the -c file: the MQTT 5 CONNACK says Maximum QoS 1 and a QoS 2 subscription is granted QoS 1 (3.2.2.3.4)")
    void maxQosOfTheFileReachesTheClients() throws Exception {
        try (var client = broker.v5(Names.clientId("max-qos"))) {
            assertEquals(1, client.connAckProperties().getMaximumQoS());
            assertEquals(1, client.subscribe(Names.topic("max-qos"), 2));
        }
    }
}
