package io.pekquitto.shards.tcp;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.settings.TlsSettings;
import java.util.Optional;

/**
 * Whose TLS a listener gets for its {@code provider} setting, and why, in words for the start-up log:
 * OpenSSL (netty-tcnative's BoringSSL) where it loads, the JDK's engine where it does not or is asked for.
 */
record TlsImplementation(SslProvider provider, String description) {
    /** The choice on this machine. */
    static TlsImplementation choose(TlsSettings.Provider setting) {
        return choose(setting, OpenSsl.isAvailable() ? Optional.empty() : Optional.of(OpenSsl.unavailabilityCause()));
    }

    /**
     * The choice where OpenSSL does not load for {@code whyNoOpenSsl}, or loads when it is empty.
     *
     * @throws TlsConfigurationException if {@code provider = openssl} and OpenSSL does not load
     */
    static TlsImplementation choose(TlsSettings.Provider setting, Optional<Throwable> whyNoOpenSsl) {
        var why = whyNoOpenSsl.map(TlsImplementation::reason);
        return switch (setting) {
            case JDK -> new TlsImplementation(SslProvider.JDK, "the JDK's engine (provider = jdk)");
            case OPENSSL -> {
                if (why.isPresent()) {
                    throw new TlsConfigurationException("provider = openssl, but OpenSSL does not load here (" + why.get()
                            + "); provider = auto takes the JDK's engine then");
                }
                yield openSsl("provider = openssl");
            }
            case AUTO -> why.isPresent()
                    ? new TlsImplementation(SslProvider.JDK, "the JDK's engine (provider = auto; OpenSSL does not load here: "
                            + why.get() + ")")
                    : openSsl("provider = auto");
        };
    }

    private static TlsImplementation openSsl(String setting) {
        return new TlsImplementation(SslProvider.OPENSSL, "OpenSSL, " + OpenSsl.versionString() + " (" + setting + ")");
    }

    /** The first and last causes: netty-tcnative wraps the loader's own message in its own. */
    private static String reason(Throwable failure) {
        var root = failure;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root == failure ? String.valueOf(failure) : failure + ", caused by " + root;
    }
}
