package io.pekquitto.shards.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslProvider;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.settings.TlsSettings.Provider;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Whose TLS each provider setting gets where OpenSSL loads and where it does not, and what the log says why. */
class TlsImplementationTest {
    private static final Optional<Throwable> LOADS = Optional.empty();
    private static final Optional<Throwable> MISSING = Optional.of(new UnsatisfiedLinkError("no netty_tcnative_linux_riscv64"));

    @Test
    void autoIsOpenSslWhereItLoadsAndTheJdkWhereItDoesNotSayingWhy() {
        var loaded = TlsImplementation.choose(Provider.AUTO, LOADS);
        assertEquals(SslProvider.OPENSSL, loaded.provider());
        assertTrue(loaded.description().startsWith("OpenSSL"), loaded.description());
        var fallback = TlsImplementation.choose(Provider.AUTO, MISSING);
        assertEquals(SslProvider.JDK, fallback.provider());
        assertTrue(fallback.description().contains("no netty_tcnative_linux_riscv64"), fallback.description());
    }

    @Test
    void openSslAskedForWhereItDoesNotLoadStopsTheListenerSayingWhy() {
        assertEquals(SslProvider.OPENSSL, TlsImplementation.choose(Provider.OPENSSL, LOADS).provider());
        var refused = assertThrows(TlsConfigurationException.class, () -> TlsImplementation.choose(Provider.OPENSSL, MISSING));
        assertTrue(refused.getMessage().startsWith("provider = openssl, but OpenSSL does not load here"), refused.getMessage());
        assertTrue(refused.getMessage().contains("no netty_tcnative_linux_riscv64"), refused.getMessage());
    }

    @Test
    void jdkIsTheJdkWhetherOrNotOpenSslLoads() {
        assertEquals(SslProvider.JDK, TlsImplementation.choose(Provider.JDK, LOADS).provider());
        assertEquals(SslProvider.JDK, TlsImplementation.choose(Provider.JDK, MISSING).provider());
    }

    @Test
    void theCauseUnderNettysWrapperIsNamedToo() {
        var wrapped = new IllegalStateException("Failed to load any of the given libraries", MISSING.get());
        var description = TlsImplementation.choose(Provider.AUTO, Optional.of(wrapped)).description();
        assertTrue(description.contains("Failed to load any of the given libraries") && description.contains("riscv64"), description);
    }
}
