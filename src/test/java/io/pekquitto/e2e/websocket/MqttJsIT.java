package io.pekquitto.e2e.websocket;

import static io.pekquitto.e2e.websocket.TcpWsWss.TCP;
import static io.pekquitto.e2e.websocket.TcpWsWss.WS;
import static io.pekquitto.e2e.websocket.TcpWsWss.WSS;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.security.SecurityFiles;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MQTT.js (npm {@code mqtt}) over a {@code ws} and a {@code wss} listener, with a TCP listener as the
 * other side: in node ({@code mqttjs-client.mjs}: QoS 0/1/2 both ways, retained, will, session resume,
 * MQTT 3.1.1 and 5) and in headless Chromium ({@code browser-exchange.mjs}: the vendored mqtt.min.js
 * in a page, exchanging QoS 0/1/2 both ways with MQTT.js over TCP).
 */
class MqttJsIT {
    private static final SecurityFiles files = SecurityFiles.create("mqttjs");
    private static final TestCertificates certificates = TestCertificates.create(files.directory());

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess(TcpWsWss.listeners(certificates));

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static int port(int listener) {
        return broker.pekquitto().boundAddresses().get(listener).getPort();
    }

    @Test
    @Timeout(150)
    @DisplayName("MQTT.js in node over ws and wss: QoS 0/1/2 both ways with TCP, retained, will, session resume; 3.1.1 and 5")
    void mqttJsInNode() throws Exception {
        NodeScript.assumeNode();
        NodeScript.assertPasses("mqttjs-client.mjs", Duration.ofSeconds(140),
                "--url", "ws://127.0.0.1:" + port(WS) + "/mqtt",
                "--url", "wss://127.0.0.1:" + port(WSS) + "/mqtt", "--ca", certificates.caFile().toString(),
                "--peer", "mqtt://127.0.0.1:" + port(TCP), "--timeout", "120");
    }

    @Test
    @Timeout(100)
    @DisplayName("MQTT.js in headless Chromium over ws exchanges QoS 0/1/2 messages both ways with MQTT.js over TCP")
    void mqttJsInChromium() throws Exception {
        NodeScript.assumeChromium();
        NodeScript.assertPasses("browser-exchange.mjs", Duration.ofSeconds(90),
                "--ws", "ws://127.0.0.1:" + port(WS) + "/mqtt", "--tcp", "mqtt://127.0.0.1:" + port(TCP), "--timeout", "75");
    }
}
