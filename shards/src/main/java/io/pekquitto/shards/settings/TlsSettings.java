package io.pekquitto.shards.settings;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A TLS listener's settings ({@code listeners.N.tls}): PEM files, read when the listener starts.
 *
 * @param certFile                  the server's certificate chain ({@code cert-file})
 * @param keyFile                   its private key: PKCS#8, PKCS#1 or EC ({@code key-file})
 * @param keyPassword               the key's password, if it is encrypted ({@code key-password})
 * @param caFile                    CA certificates that client certificates are verified against ({@code ca-file})
 * @param requireClientCertificate  whether a client without a valid certificate is refused ({@code require-client-cert})
 * @param certificateNameAsUsername whether a verified client certificate's subject CN is the username of a
 *                                  client that sends none ({@code cert-cn-as-username})
 * @param provider                  whose TLS implementation serves the listener ({@code provider})
 */
public record TlsSettings(Path certFile, Path keyFile, Optional<String> keyPassword, Optional<Path> caFile,
                          boolean requireClientCertificate, boolean certificateNameAsUsername, Provider provider) {
    /** {@code auto}: OpenSSL where it loads, else the JDK's; {@code openssl} or {@code jdk}: that one, or no start. */
    public enum Provider { AUTO, OPENSSL, JDK }

    public TlsSettings {
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        Objects.requireNonNull(keyPassword, "keyPassword");
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(provider, "provider");
    }

    /** The password is never shown. */
    @Override
    public String toString() {
        return "TlsSettings[certFile=" + certFile + ", keyFile=" + keyFile + ", caFile=" + caFile
                + ", requireClientCertificate=" + requireClientCertificate
                + ", certificateNameAsUsername=" + certificateNameAsUsername + ", provider=" + provider + "]";
    }
}
