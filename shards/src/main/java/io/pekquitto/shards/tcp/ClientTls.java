package io.pekquitto.shards.tcp;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.auth.tls.TlsMaterial;
import io.pekquitto.shards.settings.BridgeSettings;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The client side of a bridge's TLS, read once when the bridge starts: the remote's certificate checked
 * against the CA file and, unless {@code insecure}, against the address's host name (Netty's client
 * default, HTTPS's rules); a client certificate presented where one is configured. OpenSSL where it
 * loads, as the listeners have it, else the JDK's engine. Opaque to the bridge: the transport puts its
 * {@code SslHandler} in the outbound socket's pipeline.
 */
public final class ClientTls {
    private final SslContext context;

    private ClientTls(SslContext context) {
        this.context = context;
    }

    /** The Netty context, for the transport. */
    public SslContext context() {
        return context;
    }

    /** @throws TlsConfigurationException naming the bridge and the file that is missing or unusable */
    public static ClientTls load(String bridge, BridgeSettings.Tls tls) {
        requireReadable(bridge, "ca-file", tls.caFile());
        tls.certFile().ifPresent(file -> requireReadable(bridge, "cert-file", file));
        tls.keyFile().ifPresent(file -> requireReadable(bridge, "key-file", file));
        try {
            var builder = SslContextBuilder.forClient()
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .protocols(TlsMaterial.PROTOCOLS)
                    .trustManager(tls.caFile().toFile())
                    .endpointIdentificationAlgorithm(tls.insecure() ? null : "HTTPS");
            if (tls.certFile().isPresent()) builder.keyManager(tls.certFile().get().toFile(), tls.keyFile().orElseThrow().toFile());
            tls.alpn().ifPresent(protocol -> builder.applicationProtocolConfig(new ApplicationProtocolConfig(
                    ApplicationProtocolConfig.Protocol.ALPN, ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocol)));
            return new ClientTls(builder.build());
        } catch (Exception e) {
            throw new TlsConfigurationException("bridge " + bridge + ": its TLS files (ca-file " + tls.caFile()
                    + tls.certFile().map(file -> ", cert-file " + file).orElse("") + tls.keyFile().map(file -> ", key-file " + file).orElse("")
                    + ") cannot be used: " + e.getMessage(), e);
        }
    }

    private static void requireReadable(String bridge, String key, Path file) {
        if (!Files.isReadable(file)) {
            throw new TlsConfigurationException("bridge " + bridge + ": tls." + key + " " + file.toAbsolutePath() + " cannot be read");
        }
    }
}
