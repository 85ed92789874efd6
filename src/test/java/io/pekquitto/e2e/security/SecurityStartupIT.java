package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Security files that cannot be used stop the broker at start, with a message that names the file. */
class SecurityStartupIT {
    private static final SecurityFiles files = SecurityFiles.create("startup");
    private static final TestCertificates certificates = TestCertificates.create(files.directory());

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static RuntimeException startFails(String overrides) {
        var settings = BrokerSettings.parse("shards = 1\nlisteners = [{host = \"127.0.0.1\", port = 0}]\n" + overrides);
        return assertThrows(RuntimeException.class, () -> Pekquitto.start(settings).close());
    }

    private static void assertMentions(RuntimeException e, String... parts) {
        for (var part : parts) assertTrue(e.getMessage().contains(part), () -> "\"" + part + "\" not in: " + e.getMessage());
    }

    @Test
    @DisplayName("a missing certificate file, or a key that does not match the certificate, stops the start naming the file")
    void badTlsFiles() {
        var missing = files.directory().resolve("missing.crt");
        assertMentions(startFails("listeners = [{host = \"127.0.0.1\", port = 0, tls { cert-file = %s, key-file = %s }}]"
                .formatted(SecurityFiles.quoted(missing), SecurityFiles.quoted(certificates.server().keyFile()))),
                missing.toString(), "does not exist");
        var otherKey = certificates.client("other").keyFile();
        assertMentions(startFails("listeners = [{host = \"127.0.0.1\", port = 0, tls { cert-file = %s, key-file = %s }}]"
                .formatted(SecurityFiles.quoted(certificates.server().certificateFile()), SecurityFiles.quoted(otherKey))),
                otherKey.toString(), "does not match");
    }

    @Test
    @DisplayName("a password file or an ACL line that cannot be read stops the start naming the file and the line")
    void badPasswordAndAclFiles() {
        var passwords = files.write("bad-passwords", "# users", "alice:plaintext");
        assertMentions(startFails("auth.password-file = " + SecurityFiles.quoted(passwords)), passwords + ", line 2");
        var missing = files.directory().resolve("no-passwords");
        assertMentions(startFails("auth.password-file = " + SecurityFiles.quoted(missing)), missing.toString(), "does not exist");
        assertMentions(startFails("auth.acl = [ \"user a\", \"topics read x\" ]"), "auth.acl, line 2");
        var acl = files.write("bad-acl", "topic read a/#/b");
        assertMentions(startFails("auth.acl-file = " + SecurityFiles.quoted(acl)), acl + ", line 1", "not a valid topic filter");
    }
}
