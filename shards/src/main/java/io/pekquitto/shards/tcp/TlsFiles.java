package io.pekquitto.shards.tcp;

import io.pekquitto.auth.tls.TlsMaterial;
import io.pekquitto.auth.tls.TlsOptions;
import io.pekquitto.shards.settings.TlsSettings;

/** Reads a TLS listener's certificate, key and CA files into what its sockets need. */
public final class TlsFiles {
    private TlsFiles() {}

    /**
     * The listener's TLS, its files read once, before it binds.
     *
     * @throws io.pekquitto.auth.tls.TlsConfigurationException naming the file that is missing, unreadable
     *         or wrong (a key that does not match its certificate, a bad password)
     */
    public static ListenerTls load(TlsSettings settings) {
        var material = TlsMaterial.load(new TlsOptions(settings.certFile(), settings.keyFile(), settings.caFile(),
                settings.keyPassword().map(String::toCharArray), settings.requireClientCertificate(),
                settings.certificateNameAsUsername()));
        return new ListenerTls(remote -> material.newServerEngine(remote.getHostString(), remote.getPort()),
                settings.certificateNameAsUsername());
    }
}
