package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.ReloadableSecurity;
import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reload reads every file first and swaps all of it, or nothing; and it names what needs a restart. */
class ReloadTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 8883);
    private static final ClientIdentity ALICE = new ClientIdentity("c1", Optional.of("alice"), ADDRESS);

    @TempDir
    Path dir;
    private Path acl;
    private TestCertificates first;
    private TestCertificates second;

    @BeforeEach
    void files() throws IOException {
        acl = Files.writeString(dir.resolve("acl"), "user alice\ntopic readwrite home/#\n");
        first = TestCertificates.create(Files.createDirectory(dir.resolve("first")));
        second = TestCertificates.create(Files.createDirectory(dir.resolve("second")));
    }

    /** A broker's settings with the ACL file and one TLS listener on {@code certificates}' server files. */
    private BrokerSettings settings(TestCertificates certificates, String more) {
        return BrokerSettings.parse("""
                listeners = [{ host = "127.0.0.1", port = 0, tls { cert-file = "%s", key-file = "%s" } }]
                auth.acl-file = "%s"
                %s
                """.formatted(certificates.server().certificateFile(), certificates.server().keyFile(), acl, more));
    }

    @Test
    void aReloadSwapsTheAclAndTheCertificateAndSaysSo() throws IOException {
        var started = settings(first, "");
        var security = new ReloadableSecurity(started.auth().readSecurity());
        var tls = new ReloadableTls(TlsFiles.load(started.listeners().get(0).tls().orElseThrow()));
        var before = tls.current();
        Files.writeString(acl, "user alice\ntopic readwrite office/#\n");

        var reloaded = Reload.apply(settings(second, ""), Optional.of(security), List.of(Optional.of(tls)), List.of(ADDRESS));

        assertEquals(List.of("ACL file " + acl + ", anonymous clients allowed", "TLS files of listener 1 (port 8883)"), reloaded);
        var decisions = security.security().authorizer().forClient(ALICE);
        assertTrue(decisions.canPublish("office/desk"));
        assertFalse(decisions.canPublish("home/kitchen"));
        assertNotSame(before, tls.current());
    }

    @Test
    void aCertificateThatCannotBeReadChangesNothingNotEvenTheAcl() throws IOException {
        var started = settings(first, "");
        var security = new ReloadableSecurity(started.auth().readSecurity());
        var securityBefore = security.current();
        var tls = new ReloadableTls(TlsFiles.load(started.listeners().get(0).tls().orElseThrow()));
        var tlsBefore = tls.current();
        Files.writeString(acl, "user alice\ntopic readwrite office/#\n");
        Files.delete(second.server().keyFile());

        var failure = assertThrows(IllegalArgumentException.class, () -> Reload.apply(settings(second, ""),
                Optional.of(security), List.of(Optional.of(tls)), List.of(ADDRESS)));

        assertTrue(failure.getMessage().startsWith("listener 1 (port 8883): "), failure.getMessage());
        assertTrue(failure.getMessage().contains(second.server().keyFile().toString()), failure.getMessage());
        assertSame(securityBefore, security.current());
        assertSame(tlsBefore, tls.current());
    }

    @Test
    void aPasswordFileThatIsMissingChangesNothing() {
        var started = settings(first, "");
        var security = new ReloadableSecurity(started.auth().readSecurity());
        var before = security.current();
        var missing = dir.resolve("no-such-passwords");

        var failure = assertThrows(IllegalArgumentException.class, () -> Reload.apply(
                settings(first, "auth.password-file = \"" + missing + "\""), Optional.of(security), List.of(), List.of()));

        assertTrue(failure.getMessage().contains(missing.toString()), failure.getMessage());
        assertSame(before, security.current());
    }

    @Test
    void anEmbeddersOwnSecurityIsNotReloadedOnlyTheCertificates() {
        var started = settings(first, "");
        var tls = new ReloadableTls(TlsFiles.load(started.listeners().get(0).tls().orElseThrow()));

        var reloaded = Reload.apply(settings(second, ""), Optional.empty(), List.of(Optional.of(tls)), List.of(ADDRESS));

        assertEquals(List.of("TLS files of listener 1 (port 8883)"), reloaded);
    }

    @Test
    void changesBeyondFilesAreNamedByTheirKeys() {
        var started = settings(first, "");

        assertEquals(List.of(), Reload.needingRestart(started, settings(second, "auth.allow-anonymous = false")));
        assertEquals(List.of("max-qos", "receive-maximum-policy", "log.connection-messages"), Reload.needingRestart(started,
                settings(first, "max-qos = 1\nreceive-maximum-policy = lenient\nlog.connection-messages = false")));
        assertEquals(List.of("sys-interval, shutdown-timeout or metrics"), Reload.needingRestart(started,
                settings(first, "sys-interval = 5s")));
    }

    @Test
    void aListenerThatMovesOrDropsTlsNeedsARestart() {
        var started = settings(first, "");
        var moved = BrokerSettings.parse("listeners = [{ host = \"127.0.0.1\", port = 1884 }]\nauth.acl-file = \"" + acl + "\"");

        assertEquals(List.of("listeners"), Reload.needingRestart(started, moved));
    }
}
