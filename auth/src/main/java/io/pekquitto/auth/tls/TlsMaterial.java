package io.pekquitto.auth.tls;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS listener's certificate, key and trusted CAs, read once at start, as the JSSE factories that any
 * TLS implementation takes (the JDK's, or OpenSSL through Netty): TLS 1.3 and 1.2 only; with a CA
 * file, client certificates are verified (required or wanted).
 */
public final class TlsMaterial {
    /** The protocols a listener speaks, newest first. */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    private static final char[] IN_MEMORY = "pekquitto".toCharArray();

    private final KeyManagerFactory keyManagers;
    private final Optional<TrustManagerFactory> clientAuthorities;
    private final TlsOptions options;

    private TlsMaterial(KeyManagerFactory keyManagers, Optional<TrustManagerFactory> clientAuthorities, TlsOptions options) {
        this.keyManagers = keyManagers;
        this.clientAuthorities = clientAuthorities;
        this.options = options;
    }

    /**
     * Reads the files of {@code options}.
     *
     * @throws TlsConfigurationException naming the file that is missing, unreadable or wrong
     */
    public static TlsMaterial load(TlsOptions options) {
        if (options.caFile().isEmpty() && (options.requireClientCert() || options.certCnAsUsername())) {
            throw new TlsConfigurationException("require-client-cert and cert-cn-as-username need a ca-file "
                    + "to verify client certificates against (listener with cert-file " + options.certFile() + ")");
        }
        var chain = PemFiles.certificates(options.certFile(), "cert-file");
        var key = PemFiles.privateKey(options.keyFile(), options.keyPassword());
        requireMatch(key, chain.get(0), options);
        try {
            var keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("server", key, IN_MEMORY, chain.toArray(X509Certificate[]::new));
            var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, IN_MEMORY);
            var authorities = options.caFile().isPresent()
                    ? Optional.of(trusting(PemFiles.certificates(options.caFile().get(), "ca-file"))) : Optional.<TrustManagerFactory>empty();
            return new TlsMaterial(keyManagers, authorities, options);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new TlsConfigurationException("cert-file " + options.certFile() + " and key-file " + options.keyFile()
                    + " cannot be used for TLS: " + e.getMessage(), e);
        }
    }

    /** The server's key and certificate chain. */
    public KeyManagerFactory keyManagers() {
        return keyManagers;
    }

    /** What client certificates are verified against: the CAs of the ca-file, if there is one. */
    public Optional<TrustManagerFactory> clientAuthorities() {
        return clientAuthorities;
    }

    /** Whether a client must present a certificate that verifies; without, one is wanted where a ca-file is set. */
    public boolean requiresClientCertificate() {
        return options.requireClientCert();
    }

    private static TrustManagerFactory trusting(List<X509Certificate> authorities) throws GeneralSecurityException, java.io.IOException {
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < authorities.size(); i++) store.setCertificateEntry("ca-" + i, authorities.get(i));
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    /** Signs a challenge with the key and verifies it with the certificate: a mismatch fails here, not in every handshake. */
    private static void requireMatch(PrivateKey key, X509Certificate certificate, TlsOptions options) {
        var algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> throw new TlsConfigurationException("key-file " + options.keyFile() + " holds a "
                    + key.getAlgorithm() + " key: only RSA, EC and Ed25519 keys are supported");
        };
        try {
            var challenge = new byte[32];
            Arrays.fill(challenge, (byte) 0x5a);
            var signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            var signature = signer.sign();
            var verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(challenge);
            if (verifier.verify(signature)) return;
        } catch (GeneralSecurityException e) {
            // A key of another type than the certificate's: a mismatch too.
        }
        throw new TlsConfigurationException("key-file " + options.keyFile() + " does not match the certificate in cert-file "
                + options.certFile());
    }
}
