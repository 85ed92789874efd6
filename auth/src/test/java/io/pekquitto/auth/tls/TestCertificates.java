package io.pekquitto.auth.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates the tests make for themselves, never committed: a test CA, a server certificate for
 * localhost and 127.0.0.1, client certificates with a given CN, and one from a CA nobody trusts. All
 * EC P-256, written as PEM (PKCS#8 keys) into a directory so that Mosquitto's clients can use them too.
 */
public final class TestCertificates {
    /** A certificate, its key, and the PEM files they are written to. */
    public record Issued(X509Certificate certificate, PrivateKey privateKey, Path certificateFile, Path keyFile) {}

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    private static final char[] IN_MEMORY = "test".toCharArray();

    private final Path directory;
    private final Issued ca;
    private final Issued server;
    private final Issued strangerCa;

    private TestCertificates(Path directory) throws GeneralSecurityException, IOException, OperatorCreationException {
        this.directory = directory;
        this.ca = issue("ca", "pekquitto test CA", null, true, false);
        this.server = issue("server", "localhost", ca, false, true);
        this.strangerCa = issue("stranger-ca", "nobody's CA", null, true, false);
    }

    /** Makes the CA and the server certificate in {@code directory}. */
    public static TestCertificates create(Path directory) {
        try {
            return new TestCertificates(directory);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Issued ca() {
        return ca;
    }

    public Path caFile() {
        return ca.certificateFile();
    }

    public Issued server() {
        return server;
    }

    /** A client certificate with subject CN {@code commonName}, signed by the test CA. */
    public Issued client(String commonName) {
        return uncheckedIssue("client-" + commonName, commonName, ca);
    }

    /** A client certificate signed by a CA the broker does not trust. */
    public Issued untrustedClient(String commonName) {
        return uncheckedIssue("untrusted-" + commonName, commonName, strangerCa);
    }

    /** A client's TLS context: trusts the test CA, presents {@code certificate} if given. */
    public SSLContext clientContext(Optional<Issued> certificate) {
        try {
            var trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca.certificate());
            var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyManagerFactory keyManagers = null;
            if (certificate.isPresent()) {
                var keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", certificate.get().privateKey(), IN_MEMORY,
                        new X509Certificate[] {certificate.get().certificate()});
                keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(keys, IN_MEMORY);
            }
            var context = SSLContext.getInstance("TLS");
            context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Issued uncheckedIssue(String name, String commonName, Issued issuer) {
        try {
            return issue(name, commonName, issuer, false, false);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A certificate for {@code commonName} signed by {@code issuer} (self-signed when null). */
    private Issued issue(String name, String commonName, Issued issuer, boolean authority, boolean serverNames)
            throws GeneralSecurityException, IOException, OperatorCreationException {
        var keys = ecKeyPair();
        var subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "pekquitto tests").addRDN(BCStyle.CN, commonName).build();
        var issuerName = issuer == null ? subject : X500Name.getInstance(issuer.certificate().getSubjectX500Principal().getEncoded());
        var now = Instant.now();
        var builder = new JcaX509v3CertificateBuilder(issuerName, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), subject, keys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
        if (authority) builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        if (serverNames) {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
        }
        var signingKey = issuer == null ? keys.getPrivate() : issuer.privateKey();
        var holder = builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signingKey));
        var certificate = new JcaX509CertificateConverter().getCertificate(holder);
        return new Issued(certificate, keys.getPrivate(), writePem(name + ".crt", certificate), writePem(name + ".key", keys.getPrivate()));
    }

    private static KeyPair ecKeyPair() throws GeneralSecurityException {
        var generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        return generator.generateKeyPair();
    }

    private Path writePem(String name, Object object) throws IOException {
        var file = directory.resolve(name);
        try (var writer = new JcaPEMWriter(Files.newBufferedWriter(file, StandardCharsets.US_ASCII))) {
            // Keys as PKCS#8 (BEGIN PRIVATE KEY), as openssl writes them today.
            if (object instanceof PrivateKey key) {
                writer.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null));
            } else {
                writer.writeObject(object);
            }
        }
        return file;
    }
}
