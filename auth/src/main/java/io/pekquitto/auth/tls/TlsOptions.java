package io.pekquitto.auth.tls;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a TLS listener is configured with: PEM files and the client-certificate policy.
 *
 * @param certFile          the server's certificate, then any intermediates
 * @param keyFile           its private key
 * @param caFile            CA certificates that client certificates must verify against
 * @param keyPassword       the key's password, if the key is encrypted
 * @param requireClientCert whether a client must present a certificate that verifies (mutual TLS)
 * @param certCnAsUsername  whether a verified client certificate's CN stands for the username
 */
public record TlsOptions(Path certFile, Path keyFile, Optional<Path> caFile, Optional<char[]> keyPassword,
                         boolean requireClientCert, boolean certCnAsUsername) {
    public TlsOptions {
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(keyPassword, "keyPassword");
    }

    @Override
    public String toString() {  // never the password
        return "TlsOptions[certFile=" + certFile + ", keyFile=" + keyFile + ", caFile=" + caFile
                + ", requireClientCert=" + requireClientCert + ", certCnAsUsername=" + certCnAsUsername + "]";
    }
}
