package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGHUP to the runnable jar: the password file and the TLS listener's certificate are read again, new
 * clients meet the new ones, and a reload that cannot read a file changes nothing, as Mosquitto's.
 */
@Timeout(120)
class HangupReloadIT {
    private static final Duration RELOAD = Duration.ofSeconds(30);
    private static final String LOCAL = "listeners = [{ host = \"127.0.0.1\", port = 0 }]\n";

    private final SecurityFiles files = SecurityFiles.create("reload");

    @AfterEach
    void deleteFiles() {
        files.close();
    }

    @Test
    @DisplayName("after SIGHUP a user removed from the password file is refused and one added connects; a bad file changes nothing")
    void thePasswordFileIsReadAgain() throws Exception {
        var passwords = files.passwords("alice", "wonderland");
        try (var broker = RunnableJar.start(LOCAL + "auth.password-file = " + SecurityFiles.quoted(passwords))) {
            Hive5.connect(broker.port(), Names.clientId("alice"), Optional.of("alice"), Optional.of("wonderland")).close();

            files.passwords("bob", "builder");
            broker.hangUp();
            broker.awaitLog("Reloaded on SIGHUP", 1, RELOAD);

            assertTrue(broker.log().contains("Reloaded on SIGHUP: log level INFO; password file " + passwords), broker.log());
            assertEquals(0x86, Hive5.refusal(broker.port(), Names.clientId("alice"), Optional.of("alice"), Optional.of("wonderland")));
            Hive5.connect(broker.port(), Names.clientId("bob"), Optional.of("bob"), Optional.of("builder")).close();

            Files.writeString(passwords, "carol has no hash\n");
            broker.hangUp();
            broker.awaitLog("Reload on SIGHUP failed, nothing changed: ", 1, RELOAD);

            assertTrue(broker.log().contains(passwords.toString()), broker.log());
            Hive5.connect(broker.port(), Names.clientId("bob"), Optional.of("bob"), Optional.of("builder")).close();
            assertEquals(0x86, Hive5.refusal(broker.port(), Names.clientId("alice"), Optional.of("alice"), Optional.of("wonderland")));
        }
    }

    @ParameterizedTest(name = "provider = {0}")
    @ValueSource(strings = {"openssl", "jdk"})
    @DisplayName("after SIGHUP a new TLS connection gets the certificate now in the files; one made before goes on")
    void theCertificateIsReadAgain(String provider) throws Exception {
        assumeTrue(!provider.equals("openssl") || OpenSsl.isAvailable(), "OpenSSL does not load here");
        var before = TestCertificates.create(Files.createDirectory(files.directory().resolve("before")));
        var after = TestCertificates.create(Files.createDirectory(files.directory().resolve("after")));
        var certificate = files.directory().resolve("server.crt");
        var key = files.directory().resolve("server.key");
        Files.copy(before.server().certificateFile(), certificate);
        Files.copy(before.server().keyFile(), key);
        try (var broker = RunnableJar.start("listeners = [{ host = \"127.0.0.1\", port = 0, tls { cert-file = "
                + SecurityFiles.quoted(certificate) + ", key-file = " + SecurityFiles.quoted(key) + ", provider = " + provider + " } }]");
             var kept = overTls(broker.port(), before)) {
            assertTrue(broker.log().contains("serves TLS with " + (provider.equals("openssl") ? "OpenSSL" : "the JDK's engine")),
                    broker.log());

            // As a renewal does: new files at the same paths.
            Files.copy(after.server().certificateFile(), certificate, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(after.server().keyFile(), key, StandardCopyOption.REPLACE_EXISTING);
            broker.hangUp();
            broker.awaitLog("Reloaded on SIGHUP", 1, RELOAD);

            assertTrue(broker.log().contains("TLS files of listener 1 (port " + broker.port() + ")"), broker.log());
            overTls(broker.port(), after).close();
            assertThrows(RuntimeException.class, () -> overTls(broker.port(), before).close());
            assertEquals(0, kept.publish("e2e/" + Names.topic("kept"), 1, "after the reload") & 0x80);
        }
    }

    /** A client that trusts {@code certificates}' CA only. */
    private static Hive5 overTls(int port, TestCertificates certificates) {
        var ssl = TlsClients.hiveMq(certificates.ca().certificate(), Optional.empty());
        return Hive5.connect(Hive5.build(port, Names.clientId("tls"), Optional.of(ssl)), Optional.empty(), Optional.empty());
    }
}
