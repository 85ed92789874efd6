package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code auth} section and TLS listeners as read from configuration, and what is refused, by path. */
class SecuritySettingsTest {

    @Test
    void withoutAuthConfiguredAnyoneMayConnect() {
        var auth = BrokerSettings.defaults().auth();
        assertEquals(new AuthSettings(Optional.empty(), true, Optional.empty(), List.of()), auth);
        assertFalse(auth.hasAcl());
    }

    @Test
    void aPasswordFileTurnsAnonymousAccessOffUnlessItIsAllowedExplicitly() {
        assertFalse(BrokerSettings.parse("auth.password-file = /etc/p").auth().allowAnonymous());
        assertTrue(BrokerSettings.parse("auth.password-file = /etc/p\nauth.allow-anonymous = true").auth().allowAnonymous());
        assertFalse(BrokerSettings.parse("auth.allow-anonymous = false").auth().allowAnonymous());
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("auth.allow-anonymous = sometimes"));
        assertTrue(e.getMessage().startsWith("pekquitto.auth.allow-anonymous must be true, false or auto"), e.getMessage());
    }

    @Test
    void aclLinesAndFilesAreAcls() {
        var auth = BrokerSettings.parse("auth.acl = [ \"user a\", \"topic read x\" ]\nauth.acl-file = acl").auth();
        assertEquals(List.of("user a", "topic read x"), auth.acl());
        assertEquals(Optional.of(Path.of("acl")), auth.aclFile());
        assertTrue(auth.hasAcl());
    }

    @Test
    void aListenerWithACertificateIsATlsListener() {
        var listeners = BrokerSettings.parse("""
                listeners = [ { port = 1883 }, { port = 8883, tls { cert-file = s.crt, key-file = s.key, ca-file = ca.crt,
                                                                  require-client-cert = true, cert-cn-as-username = true } } ]
                """).listeners();
        assertEquals(Optional.empty(), listeners.get(0).tls());
        var tls = listeners.get(1).tls().orElseThrow();
        assertEquals(new TlsSettings(Path.of("s.crt"), Path.of("s.key"), Optional.empty(), Optional.of(Path.of("ca.crt")), true, true,
                TlsSettings.Provider.AUTO), tls);
    }

    @Test
    void incompleteTlsSettingsNameTheKey() {
        var noKey = assertThrows(ConfigurationException.class,
                () -> BrokerSettings.parse("listeners = [ { port = 8883, tls { cert-file = s.crt } } ]"));
        assertTrue(noKey.getMessage().startsWith("pekquitto.listeners.0.tls.key-file is needed with cert-file"), noKey.getMessage());
        var noCa = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse(
                "listeners = [ { port = 8883, tls { cert-file = s.crt, key-file = s.key, require-client-cert = true } } ]"));
        assertTrue(noCa.getMessage().startsWith("pekquitto.listeners.0.tls.ca-file is needed"), noCa.getMessage());
        var noCert = assertThrows(ConfigurationException.class,
                () -> BrokerSettings.parse("listeners = [ { port = 8883, tls { key-file = s.key } } ]"));
        assertTrue(noCert.getMessage().startsWith("pekquitto.listeners.0.tls.cert-file is needed"), noCert.getMessage());
    }

    @Test
    void theTlsProviderIsAutoOpensslOrJdkAndAnotherNamesItsKey() {
        var listeners = BrokerSettings.parse("""
                listeners = [ { port = 8883, tls { cert-file = s.crt, key-file = s.key } },
                              { port = 8884, tls { cert-file = s.crt, key-file = s.key, provider = openssl } },
                              { port = 8885, tls { cert-file = s.crt, key-file = s.key, provider = jdk } } ]
                """).listeners();
        assertEquals(List.of(TlsSettings.Provider.AUTO, TlsSettings.Provider.OPENSSL, TlsSettings.Provider.JDK),
                listeners.stream().map(listener -> listener.tls().orElseThrow().provider()).toList());
        var unknown = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse(
                "listeners = [ { port = 8883, tls { cert-file = s.crt, key-file = s.key, provider = boringssl } } ]"));
        assertTrue(unknown.getMessage().startsWith(
                "pekquitto.listeners.0.tls.provider must be auto, openssl or jdk, not \"boringssl\""), unknown.getMessage());
        var withoutCertificate = assertThrows(ConfigurationException.class,
                () -> BrokerSettings.parse("listeners = [ { port = 1883, tls { provider = openssl } } ]"));
        assertTrue(withoutCertificate.getMessage().startsWith("pekquitto.listeners.0.tls.cert-file is needed"),
                withoutCertificate.getMessage());
    }

    @Test
    void theKeyPasswordIsNeverPrinted() {
        var tls = new TlsSettings(Path.of("s.crt"), Path.of("s.key"), Optional.of("hunter2"), Optional.empty(), false, false,
                TlsSettings.Provider.AUTO);
        assertFalse(tls.toString().contains("hunter2"));
    }
}
