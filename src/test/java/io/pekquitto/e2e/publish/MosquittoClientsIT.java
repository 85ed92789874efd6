package io.pekquitto.e2e.publish;

import static io.pekquitto.e2e.interop.MosquittoClients.FORMAT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoClients;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mosquitto's command line clients (Debian package mosquitto-clients) as child processes: a third,
 * C implementation of both protocol versions. Every process has a deadline and is killed in finally;
 * the tests fail when the clients are not installed ({@code .ci/run} installs them).
 */
class MosquittoClientsIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "5"})
    @Timeout(30)
    @DisplayName("mosquitto_pub to mosquitto_sub at QoS 1 [MQTT-4.3.2-2] [MQTT-3.8.4-6 (3.1.1)] [MQTT-3.8.4-8 (5.0)]")
    void qos1RoundTrip(String version) throws Exception {
        String topic = Names.topic("mosquitto");
        // stdbuf: mosquitto_sub's stdout is a pipe here, and its debug lines must come out as printed.
        try (var subscriber = ChildProcess.start(MosquittoClients.sub(broker.port(), version, Names.clientId("msub"),
                "-q", "1", "-t", topic, "-C", "1", "-W", "10", "-d", "-F", FORMAT))) {
            subscriber.awaitLine(line -> line.contains("received SUBACK"));
            try (var publisher = ChildProcess.start(MosquittoClients.pub(broker.port(), version, Names.clientId("mpub"),
                    "-q", "1", "-t", topic, "-m", "hello mosquitto"))) {
                assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
            }
            subscriber.awaitLine(line -> line.equals(topic + "|hello mosquitto|1|0"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "5"})
    @Timeout(30)
    @DisplayName("mosquitto_pub -r leaves a retained message that a later mosquitto_sub receives with RETAIN 1 [MQTT-3.3.1-8 (3.1.1)] [MQTT-3.3.1-9 (5.0)]")
    void retainedMessage(String version) throws Exception {
        String topic = Names.topic("mosquitto-retained");
        try (var publisher = ChildProcess.start(MosquittoClients.pub(broker.port(), version, Names.clientId("mpub"),
                "-q", "1", "-r", "-t", topic, "-m", "kept"))) {
            assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
        }
        try (var subscriber = ChildProcess.start(MosquittoClients.sub(broker.port(), version, Names.clientId("msub"),
                "-q", "1", "-t", topic, "-C", "1", "-W", "10", "-F", FORMAT))) {
            subscriber.awaitLine(line -> line.equals(topic + "|kept|1|1"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }
}
