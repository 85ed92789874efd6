package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientSslConfig;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code pekquitto convert} on configurations from Mosquitto's own documentation and test suite (ops test resources
 * mosquitto-configs/, README there): each converted one passes {@code --test-config}, and where the original lets a
 * client in and refuses another (passwords, client certificates, TLS, WebSockets, an ACL), pekquitto on the
 * converted file does the same as Mosquitto (Debian's 2.0, which {@code .ci/run} installs) on the original.
 */
class MosquittoConfigsIT {
    private static final MosquittoConfigs configs = MosquittoConfigs.create("mosquitto-configs");

    @AfterAll
    static void deleteFiles() {
        configs.close();
    }

    /** What a test checks of a broker, named for its failures. */
    private interface Check {
        void on(String broker) throws Exception;
    }

    // The bridges' files are read by the broker's bridge reader here; MosquittoBridgeConfigsIT runs them.
    @ParameterizedTest
    @ValueSource(strings = {"mosquitto-no-auth.conf", "lets-encrypt.conf", "01-connect-uname-password-denied.conf",
            "08-ssl-connect-cert-auth.conf", "08-ssl-connect-identity.conf", "09-acl-access-variants.conf", "random.conf",
            "bridge-test-mosquitto-org.conf", "06-bridge-b2br-remapping.conf", "06-bridge-br2b-remapping.conf", "08-ssl-bridge.conf"})
    @Timeout(90)
    @DisplayName("each of Mosquitto's configurations, converted, passes --test-config")
    void eachConvertedConfigurationPassesTestConfig(String name) throws Exception {
        converted(configs.write(name));
    }

    @Test
    @Timeout(150)
    @DisplayName("Mosquitto's password test: pekquitto admits user with the right password and refuses a wrong one, as Mosquitto")
    void passwords() throws Exception {
        var original = configs.write("01-connect-uname-password-denied.conf");
        int port = configs.port(1888);
        onBoth(original, List.of(port), broker -> {
            assertTrue(admits(client(port, Optional.empty(), false), "user", "password"), broker + " refused user");
            assertFalse(admits(client(port, Optional.empty(), false), "user", "password9"), broker + " let a wrong password in");
        });
    }

    @Test
    @Timeout(150)
    @DisplayName("Mosquitto's certificate test: pekquitto admits a client with a certificate and refuses one without, as Mosquitto")
    void clientCertificates() throws Exception {
        var original = configs.write("08-ssl-connect-cert-auth.conf");
        int port = configs.port(1888);
        onBoth(original, List.of(port, configs.port(1889)), broker -> {
            assertTrue(admits(client(port, Optional.of(tls(true)), false), null, null), broker + " refused a client's certificate");
            assertFalse(admits(client(port, Optional.of(tls(false)), false), null, null), broker + " let a client in without a certificate");
        });
    }

    @Test
    @Timeout(150)
    @DisplayName("Mosquitto's random test's listeners: over TCP, TLS, ws and wss, pekquitto admits the password and refuses a wrong one, as Mosquitto")
    void tcpTlsWebSocketsAndSecureWebSockets() throws Exception {
        var original = configs.write("random.conf");
        var ports = List.of(configs.port(1884), configs.port(8884), configs.port(8001), configs.port(4431));
        onBoth(original, ports, broker -> {
            for (int i = 0; i < ports.size(); i++) {
                var ssl = i % 2 == 1 ? Optional.of(tls(false)) : Optional.<MqttClientSslConfig>empty();
                boolean webSocket = i >= 2;
                var where = broker + " on " + List.of("tcp", "tls", "ws", "wss").get(i);
                assertTrue(admits(client(ports.get(i), ssl, webSocket), "test", "password"), where + " refused the password");
                assertFalse(admits(client(ports.get(i), ssl, webSocket), "test", "bad"), where + " let a wrong password in");
            }
        });
    }

    @Test
    @Timeout(150)
    @DisplayName("Mosquitto's ACL test: username receives on the topics the ACL lets it use and not on those it denies, as on Mosquitto")
    void accessControl() throws Exception {
        var original = configs.write("09-acl-access-variants.conf");
        int port = configs.port(1888);
        // As Mosquitto's test: subscribe to a topic, publish on it, and see whether the message comes back. The SUBACKs
        // differ: Mosquitto grants a denied topic and withholds its messages, pekquitto refuses it (docs/security.md).
        // The topic lines before the first user line are the anonymous clients' alone.
        var cases = List.of(new Access(null, "topic/global/all", true), new Access(null, "topic/global/except", false),
                new Access("username", "topic/global/all", false), new Access("username", "topic/username/mine", true),
                new Access("username", "topic/username/except", false), new Access("username", "pattern/username/mine", true),
                new Access("username", "pattern/username/except", false), new Access("other", "pattern/username/mine", false));
        onBoth(original, List.of(port), broker -> {
            for (var access : cases) {
                try (var user = Hive5.connect(client(port, Optional.empty(), false), Optional.ofNullable(access.username()), Optional.empty())) {
                    user.subscribe(access.topic());
                    user.publish(access.topic(), 1, "message");
                    var received = access.delivered() ? user.inbox(Hive5.RECEIVE) : user.inbox(Hive5.QUIET);
                    assertEquals(access.delivered(), received.isPresent(), () -> broker + ": " + access);
                }
            }
        });
    }

    /** Whether a message {@code username} (null: anonymous) publishes on {@code topic} comes back to its subscription there. */
    private record Access(String username, String topic, boolean delivered) {}

    /** The jar's conversion of {@code original}, after asserting that it passes {@code --test-config}. */
    static String converted(Path original) throws Exception {
        String converted;
        try (var convert = ChildProcess.start(List.of(RunnableJar.java(), "-jar", RunnableJar.path(), "convert", original.toString()))) {
            assertEquals(0, convert.awaitExit(), convert::output);
            converted = convert.output();
        }
        var file = Files.writeString(original.resolveSibling("pekquitto-" + original.getFileName()), converted);
        try (var check = ChildProcess.start(List.of(RunnableJar.java(), "-jar", RunnableJar.path(), "-c", file.toString(), "--test-config"))) {
            assertEquals(0, check.awaitExit(), () -> check.output() + "\n--- " + original.getFileName() + " converted:\n" + converted);
        }
        return converted;
    }

    /** Runs {@code check} on pekquitto started on the conversion of {@code original}, then on Mosquitto started on it. */
    private static void onBoth(Path original, List<Integer> ports, Check check) throws Exception {
        var converted = converted(original);
        try (var pekquitto = RunnableJar.start(converted)) {
            for (int port : ports) awaitListening(port, pekquitto::log);
            check.on("pekquitto");
        }
        try (var mosquitto = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-c", original.toString()))) {
            mosquitto.awaitLine(line -> line.contains(" running"));
            check.on("Mosquitto");
        }
    }

    interface Log {
        String read() throws Exception;
    }

    /** Waits, at most 30 seconds, until a connection to 127.0.0.1:{@code port} is accepted. */
    static void awaitListening(int port, Log log) throws Exception {
        var deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (true) {
            try (var socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return;
            } catch (java.io.IOException e) {
                if (Instant.now().isAfter(deadline)) throw new AssertionError("nothing listens on " + port + ": " + log.read(), e);
                Thread.sleep(100);
            }
        }
    }

    /** TLS trusting the test CA, with a client certificate of it when {@code withCertificate}. */
    private static MqttClientSslConfig tls(boolean withCertificate) {
        return TlsClients.hiveMq(configs.certificates().ca().certificate(),
                withCertificate ? Optional.of(configs.certificates().client("convert-client")) : Optional.empty());
    }

    /** An MQTT 5 client of 127.0.0.1:{@code port}, over TLS when {@code ssl} is given, over WebSockets at /mqtt when asked. */
    private static Mqtt5BlockingClient client(int port, Optional<MqttClientSslConfig> ssl, boolean webSocket) {
        var builder = MqttClient.builder().useMqttVersion5().identifier(Names.clientId("convert")).serverHost("127.0.0.1").serverPort(port);
        if (ssl.isPresent()) builder = builder.sslConfig(ssl.get());
        // pekquitto serves WebSockets at /mqtt (the converter says so); Mosquitto at any path.
        if (webSocket) builder = builder.webSocketConfig().serverPath("mqtt").subprotocol("mqtt").applyWebSocketConfig();
        return builder.buildBlocking();
    }

    /** Whether the broker lets {@code client} in (with {@code username} and {@code password} when not null). */
    private static boolean admits(Mqtt5BlockingClient client, String username, String password) {
        try (var connected = Hive5.connect(client, Optional.ofNullable(username), Optional.ofNullable(password))) {
            return true;
        } catch (RuntimeException refused) {  // a CONNACK's refusal, or a TLS handshake's
            return false;
        }
    }
}
