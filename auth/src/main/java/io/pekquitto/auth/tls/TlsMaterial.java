package io.pekquitto.auth.tls;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS listener's certificate, key and trusted CAs, read once at start, and the server engines made
 * from them: TLS 1.3 and 1.2 only; with a CA file, client certificates are verified (required or
 * wanted).
 */
public final class TlsMaterial {
    private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    private static final char[] IN_MEMORY = "pekquitto".toCharArray();

    private final SSLContext context;
    private final TlsOptions options;
    private final String[] protocols;

    private TlsMaterial(SSLContext context, TlsOptions options) {
        this.context = context;
        this.options = options;
        var supported = List.of(context.getSupportedSSLParameters().getProtocols());
        this.protocols = PROTOCOLS.stream().filter(supported::contains).toArray(String[]::new);
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
            var trustManagers = options.caFile().isPresent() ? trusting(PemFiles.certificates(options.caFile().get(), "ca-file")) : null;
            var context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers == null ? null : trustManagers.getTrustManagers(), null);
            return new TlsMaterial(context, options);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new TlsConfigurationException("cert-file " + options.certFile() + " and key-file " + options.keyFile()
                    + " cannot be used for TLS: " + e.getMessage(), e);
        }
    }

    /** A server engine for one accepted connection. */
    public SSLEngine newServerEngine(String peerHost, int peerPort) {
        var engine = context.createSSLEngine(peerHost, peerPort);
        engine.setUseClientMode(false);
        engine.setEnabledProtocols(protocols);
        if (options.requireClientCert()) {
            engine.setNeedClientAuth(true);
        } else if (options.caFile().isPresent()) {
            engine.setWantClientAuth(true);  // an optional certificate, verified when given
        }
        return engine;
    }

    /** The protocols the engines enable, newest first. */
    public List<String> protocols() {
        return List.of(protocols);
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
