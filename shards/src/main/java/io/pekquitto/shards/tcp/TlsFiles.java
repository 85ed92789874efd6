package io.pekquitto.shards.tcp;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.auth.tls.TlsMaterial;
import io.pekquitto.auth.tls.TlsOptions;
import io.pekquitto.shards.settings.TlsSettings;
import javax.net.ssl.SSLException;

/** Reads a TLS listener's certificate, key and CA files into what its sockets need. */
public final class TlsFiles {
    private TlsFiles() {}

    /**
     * The listener's TLS, its files read once, before it binds, served by the implementation its
     * {@code provider} setting chooses ({@link TlsImplementation}).
     *
     * @throws TlsConfigurationException naming the file that is missing, unreadable or wrong (a key that
     *         does not match its certificate, a bad password), or saying that OpenSSL, asked for, does not load
     */
    public static ListenerTls load(TlsSettings settings) {
        var material = TlsMaterial.load(new TlsOptions(settings.certFile(), settings.keyFile(), settings.caFile(),
                settings.keyPassword().map(String::toCharArray), settings.requireClientCertificate(),
                settings.certificateNameAsUsername()));
        var implementation = TlsImplementation.choose(settings.provider());
        // OpenSSL takes the key and chain out of the key manager at each handshake unless it may keep them.
        var keys = implementation.provider() == SslProvider.JDK ? material.keyManagers()
                : new OpenSslCachingX509KeyManagerFactory(material.keyManagers());
        var context = SslContextBuilder.forServer(keys)
                .sslProvider(implementation.provider())
                .protocols(TlsMaterial.PROTOCOLS)
                .clientAuth(settings.requireClientCertificate() ? ClientAuth.REQUIRE
                        : material.clientAuthorities().isPresent() ? ClientAuth.OPTIONAL : ClientAuth.NONE);
        material.clientAuthorities().ifPresent(context::trustManager);
        if (implementation.provider() == SslProvider.OPENSSL) {
            // OpenSSL's handshake steps (the signature with the key, a client certificate's check) as delegated
            // tasks, run off the shard's thread as the JDK's are: Netty's default, which a system property may change.
            context.option(OpenSslContextOption.USE_TASKS, true);
        }
        try {
            return new ListenerTls(context.build(), settings.certificateNameAsUsername(), implementation.description());
        } catch (SSLException e) {
            throw new TlsConfigurationException("cert-file " + settings.certFile() + " and key-file " + settings.keyFile()
                    + " cannot be used with " + implementation.description() + ": " + e.getMessage(), e);
        }
    }
}
