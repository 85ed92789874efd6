package io.pekquitto.e2e.security;

import static io.pekquitto.e2e.interop.MosquittoClients.FORMAT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS listeners with certificates the test makes for itself (a test CA, a server certificate for
 * 127.0.0.1, client certificates): MQTT over TLS, mutual TLS with and without a client certificate,
 * and a client certificate's CN as the username the ACLs see, over TLS and over wss; with HiveMQ's
 * client, Paho's WebSocket transport and Mosquitto's clients. Each on a broker whose TLS is OpenSSL where
 * it loads ({@code provider = auto}) and on one whose TLS is the JDK's engine.
 */
class TlsIT {
    private static final SecurityFiles files = SecurityFiles.create("tls");
    private static final TestCertificates certificates = TestCertificates.create(files.directory());
    private static final int PLAIN = 0;
    private static final int TLS = 1;
    private static final int MUTUAL = 2;
    private static final int MUTUAL_WSS = 3;
    private static final String BROKER = """
            listeners = [
              { host = "127.0.0.1", port = 0 }
              { host = "127.0.0.1", port = 0, tls { cert-file = %1$s, key-file = %2$s, provider = %4$s } }
              { host = "127.0.0.1", port = 0, tls { cert-file = %1$s, key-file = %2$s, ca-file = %3$s,
                                                    require-client-cert = true, cert-cn-as-username = true, provider = %4$s } }
              { host = "127.0.0.1", port = 0, protocol = websocket,
                tls { cert-file = %1$s, key-file = %2$s, ca-file = %3$s, require-client-cert = true, cert-cn-as-username = true,
                      provider = %4$s } }
            ]
            auth.acl = [ "topic read #", "topic write e2e/#", "user device-1", "topic readwrite devices/device-1/#" ]
            """;

    @RegisterExtension
    static final BrokerExtension auto = BrokerExtension.inProcess(broker("auto"));
    @RegisterExtension
    static final BrokerExtension jdk = BrokerExtension.inProcess(broker("jdk"));

    private static String broker(String provider) {
        return BROKER.formatted(SecurityFiles.quoted(certificates.server().certificateFile()),
                SecurityFiles.quoted(certificates.server().keyFile()), SecurityFiles.quoted(certificates.caFile()), provider);
    }

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static int port(String provider, int listener) {
        return (provider.equals("jdk") ? jdk : auto).pekquitto().boundAddresses().get(listener).getPort();
    }

    private static Hive5 overTls(String provider, int listener, String clientId, Optional<TestCertificates.Issued> certificate) {
        var ssl = TlsClients.hiveMq(certificates.ca().certificate(), certificate);
        return Hive5.connect(Hive5.build(port(provider, listener), clientId, Optional.of(ssl)), Optional.empty(), Optional.empty());
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @DisplayName("MQTT over TLS: a client that trusts the CA connects, publishes and receives")
    void mqttOverTls(String provider) throws Exception {
        var topic = Names.topic("tls");
        try (var subscriber = overTls(provider, TLS, Names.clientId("sub"), Optional.empty());
             var publisher = overTls(provider, TLS, Names.clientId("pub"), Optional.empty())) {
            assertEquals(1, subscriber.subscribe(topic));
            assertEquals(0, publisher.publish(topic, 1, "encrypted") & 0x80);
            assertEquals("encrypted", Hive5.text(subscriber.next()));
        }
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @DisplayName("a client that speaks plain MQTT to a TLS listener gets no CONNACK and is closed")
    void plainMqttToATlsListenerIsClosed(String provider) throws Exception {
        try (var raw = RawClient.open(port(provider, TLS))) {
            raw.send(RawClient.Connect.of(RawClient.V5, Names.clientId("plain")).bytes());
            raw.expectClosed(Duration.ofSeconds(5));
        }
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @DisplayName("mutual TLS: a client certificate from the CA connects; none, or one from another CA, is refused in the handshake")
    void mutualTls(String provider) {
        try (var device = overTls(provider, MUTUAL, Names.clientId("device"), Optional.of(certificates.client("device-1")))) {
            assertEquals(1, device.subscribe("devices/device-1/#"));
        }
        assertThrows(RuntimeException.class, () -> overTls(provider, MUTUAL, Names.clientId("none"), Optional.empty()).close());
        assertThrows(RuntimeException.class,
                () -> overTls(provider, MUTUAL, Names.clientId("stranger"), Optional.of(certificates.untrustedClient("device-1"))).close());
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @DisplayName("cert-cn-as-username: the certificate's CN is the username the ACLs see")
    void theCertificateNameFeedsTheAcls(String provider) throws Exception {
        try (var monitor = Hive5.connect(port(provider, PLAIN), Names.clientId("monitor"), Optional.empty(), Optional.empty());
             var device1 = overTls(provider, MUTUAL, Names.clientId("d1"), Optional.of(certificates.client("device-1")));
             var device2 = overTls(provider, MUTUAL, Names.clientId("d2"), Optional.of(certificates.client("device-2")))) {
            assertEquals(1, monitor.subscribe("devices/#"));
            assertEquals(0, device1.publish("devices/device-1/temperature", 1, "20"));
            assertEquals("20", Hive5.text(monitor.next()));
            assertEquals(0x87, device2.publish("devices/device-1/temperature", 1, "forged"));
            assertEquals(0x87, monitor.publish("devices/device-1/temperature", 1, "anonymous"));
            assertEquals(Optional.empty(), monitor.quiet().map(Hive5::text));
        }
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @DisplayName("over wss too: a client certificate's CN is the username the ACLs see")
    void theCertificateNameFeedsTheAclsOverWss(String provider) throws Exception {
        var wss = "wss://127.0.0.1:" + port(provider, MUTUAL_WSS) + "/mqtt";
        try (var monitor = Hive5.connect(port(provider, PLAIN), Names.clientId("monitor"), Optional.empty(), Optional.empty());
             var device1 = V5Client.connect(wss, Names.clientId("d1"), options -> options.setSocketFactory(
                     certificates.clientContext(Optional.of(certificates.client("device-1"))).getSocketFactory()));
             var device2 = V5Client.connect(wss, Names.clientId("d2"), options -> options.setSocketFactory(
                     certificates.clientContext(Optional.of(certificates.client("device-2"))).getSocketFactory()))) {
            assertEquals(1, monitor.subscribe("devices/#"));
            device2.publish("devices/device-1/temperature", "forged".getBytes(StandardCharsets.UTF_8), 0, false);
            device1.publish("devices/device-1/temperature", "20".getBytes(StandardCharsets.UTF_8), 1, false);
            assertEquals("20", Hive5.text(monitor.next()));
            assertEquals(Optional.empty(), monitor.quiet().map(Hive5::text));
        }
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"auto", "jdk"})
    @Timeout(30)
    @DisplayName("mosquitto_sub --cafile over TLS receives what mosquitto_pub --cafile --cert --key publishes over mutual TLS")
    void mosquittoClientsOverTls(String provider) throws Exception {
        var device = certificates.client("device-1");
        var topic = "devices/device-1/" + Names.topic("mosquitto");
        try (var subscriber = ChildProcess.start(MosquittoClients.sub(port(provider, TLS), "5", Names.clientId("msub"),
                "--cafile", certificates.caFile().toString(), "-q", "1", "-t", topic, "-C", "1", "-W", "10", "-d", "-F", FORMAT))) {
            subscriber.awaitLine(line -> line.contains("received SUBACK"));
            try (var publisher = ChildProcess.start(MosquittoClients.pub(port(provider, MUTUAL), "5", Names.clientId("mpub"),
                    "--cafile", certificates.caFile().toString(), "--cert", device.certificateFile().toString(),
                    "--key", device.keyFile().toString(), "-q", "1", "-t", topic, "-m", "over mutual TLS"))) {
                assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
            }
            subscriber.awaitLine(line -> line.equals(topic + "|over mutual TLS|1|0"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }
}
