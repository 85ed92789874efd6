package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.nio.file.Files;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A bridge over TLS to a real Mosquitto that requires a client certificate and takes its CN as the user. */
class BridgeTlsIT {

    @Test
    @Timeout(60)
    @DisplayName("a TLS bridge with a client certificate, the remote's name checked, carries messages out and in")
    void tlsWithAClientCertificate() throws Exception {
        var certificates = TestCertificates.create(Files.createTempDirectory("bridge-tls"));
        var server = certificates.server();
        var bridgeCertificate = certificates.client("bridge-user");
        var farCertificate = certificates.client("far-user");
        var clientId = Names.clientId("tls-bridge");
        try (var remote = MosquittoRemote.launch(
                "cafile " + certificates.caFile().toAbsolutePath(),
                "certfile " + server.certificateFile().toAbsolutePath(),
                "keyfile " + server.keyFile().toAbsolutePath(),
                "require_certificate true",
                "use_identity_as_username true")) {
            var settings = BrokerSettings.parse("""
                    shards = 1
                    listeners = [{host = "127.0.0.1", port = 0}]
                    bridges = [{
                      name = tls, addresses = ["localhost:%d"], client-id = "%s"
                      restart-timeout { base = 200ms, cap = 1s }
                      tls { ca-file = "%s", cert-file = "%s", key-file = "%s" }
                      topics = [ { pattern = "up/#", direction = out, qos = 1 }, { pattern = "down/#", direction = in, qos = 1 } ]
                    }]
                    """.formatted(remote.port(), clientId, certificates.caFile().toAbsolutePath(),
                    bridgeCertificate.certificateFile().toAbsolutePath(), bridgeCertificate.keyFile().toAbsolutePath()));
            var farContext = certificates.clientContext(Optional.of(farCertificate));
            try (var pekquitto = Pekquitto.start(settings);
                 var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"));
                 var far = V3Client.connect("ssl://localhost:" + remote.port(), Names.clientId("far"),
                         options -> options.setSocketFactory(farContext.getSocketFactory()))) {
                far.subscribe("up/#", 1);
                local.subscribe("down/#", 1);
                BridgeToMosquittoIT.awaitUp(local, clientId);
                local.publish("up/a", "over TLS", 1, false);
                assertEquals("up/a over TLS", text(far.inbox().next(WAIT)));
                for (long deadline = System.nanoTime() + WAIT.toNanos(); System.nanoTime() < deadline; ) {
                    far.publish("down/b", "back over TLS", 1, false);
                    var message = local.inbox().poll(java.time.Duration.ofMillis(300));
                    if (message != null) {
                        assertEquals("down/b back over TLS", text(message));
                        return;
                    }
                }
                throw new AssertionError("nothing came in over the TLS bridge within " + WAIT);
            }
        }
    }

    private static String text(io.pekquitto.e2e.Inbox.Message message) {
        return message.topic() + " " + message.text();
    }
}
