package io.pekquitto.e2e.websocket;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
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
    private static final Path FILES = temporaryDirectory();
    private static final TestCertificates certificates = TestCertificates.create(FILES);
    private static final int TCP = 0;
    private static final int WS = 1;
    private static final int WSS = 2;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("""
            listeners = [
              { host = "127.0.0.1", port = 0 }
              { host = "127.0.0.1", port = 0, protocol = websocket }
              { host = "127.0.0.1", port = 0, protocol = websocket, tls { cert-file = "%s", key-file = "%s" } }
            ]
            """.formatted(certificates.server().certificateFile(), certificates.server().keyFile()));

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("pekquitto-websocket");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void deleteFiles() throws IOException {
        try (Stream<Path> paths = Files.walk(FILES)) {
            for (var path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
        }
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
