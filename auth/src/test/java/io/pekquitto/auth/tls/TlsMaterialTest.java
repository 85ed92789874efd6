package io.pekquitto.auth.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObjectGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PEM keys in every format users have, the errors that name the file, and handshakes with the engines made. */
class TlsMaterialTest {
    private static final org.bouncycastle.jce.provider.BouncyCastleProvider BC = new org.bouncycastle.jce.provider.BouncyCastleProvider();

    @TempDir
    static Path directory;
    private static TestCertificates certificates;

    @BeforeAll
    static void makeCertificates() {
        certificates = TestCertificates.create(directory);
    }

    private static TlsOptions options(Path cert, Path key) {
        return new TlsOptions(cert, key, Optional.empty(), Optional.empty(), false, false);
    }

    private static Path pem(String name, PemObjectGenerator generator) throws IOException {
        var file = directory.resolve(name);
        try (var writer = new JcaPEMWriter(Files.newBufferedWriter(file, StandardCharsets.US_ASCII))) {
            writer.writeObject(generator);
        }
        return file;
    }

    private static KeyPair keyPair(String algorithm) throws Exception {
        // Bouncy Castle's EC keys carry their curve inside the key, as OpenSSL's `EC PRIVATE KEY` does.
        var generator = KeyPairGenerator.getInstance(algorithm, BC);
        generator.initialize(algorithm.equals("RSA") ? 2048 : 256);
        return generator.generateKeyPair();
    }

    private static Path selfSigned(String name, KeyPair keys) throws Exception {
        var subject = new X500Name("CN=" + name);
        var holder = new JcaX509v3CertificateBuilder(subject, BigInteger.ONE, Date.from(Instant.now().minusSeconds(60)),
                Date.from(Instant.now().plusSeconds(3600)), subject, keys.getPublic())
                .build(new JcaContentSignerBuilder(keys.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA")
                        .build(keys.getPrivate()));
        return pem(name + ".crt", new JcaMiscPEMGenerator(new JcaX509CertificateConverter().getCertificate(holder)));
    }

    private static void assertMentions(Throwable e, String... parts) {
        for (var part : parts) assertTrue(e.getMessage().contains(part), () -> "\"" + part + "\" not in: " + e.getMessage());
    }

    private static String firstLine(Path file) throws IOException {
        return Files.readAllLines(file).get(0);
    }

    @Test
    void pkcs8KeysAreRead() {
        var server = certificates.server();
        var material = TlsMaterial.load(options(server.certificateFile(), server.keyFile()));
        assertEquals(1, material.keyManagers().getKeyManagers().length);
        assertEquals(Optional.empty(), material.clientAuthorities());
    }

    @Test
    void pkcs1RsaAndEcKeysAreRead() throws Exception {
        var rsa = keyPair("RSA");
        var rsaKey = pem("rsa.key", new JcaMiscPEMGenerator(rsa.getPrivate()));
        assertEquals("-----BEGIN RSA PRIVATE KEY-----", firstLine(rsaKey));
        TlsMaterial.load(options(selfSigned("rsa", rsa), rsaKey));
        var ec = keyPair("EC");
        var ecKey = pem("ec.key", new JcaMiscPEMGenerator(ec.getPrivate()));
        assertEquals("-----BEGIN EC PRIVATE KEY-----", firstLine(ecKey));
        TlsMaterial.load(options(selfSigned("ec", ec), ecKey));
    }

    @Test
    void encryptedKeysNeedTheirPassword() throws Exception {
        var keys = keyPair("EC");
        var cert = selfSigned("encrypted", keys);
        var pkcs8 = pem("encrypted.key", new JcaPKCS8Generator(keys.getPrivate(),
                new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC).setProvider(BC).setPassword("open sesame".toCharArray()).build()));
        assertEquals("-----BEGIN ENCRYPTED PRIVATE KEY-----", firstLine(pkcs8));
        var legacy = pem("legacy.key", new JcaMiscPEMGenerator(keys.getPrivate(),
                new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BC).build("open sesame".toCharArray())));
        for (var key : List.of(pkcs8, legacy)) {
            TlsMaterial.load(new TlsOptions(cert, key, Optional.empty(), Optional.of("open sesame".toCharArray()), false, false));
            var wrong = assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(
                    new TlsOptions(cert, key, Optional.empty(), Optional.of("open barley".toCharArray()), false, false)));
            assertMentions(wrong, key.toString(), "key-password");
            assertFalse(wrong.getMessage().contains("barley"), "the password is never in a message");
            var none = assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(options(cert, key)));
            assertMentions(none, key.toString(), "encrypted");
        }
    }

    @Test
    void aKeyThatDoesNotMatchItsCertificateIsRefusedNamingBothFiles() {
        var server = certificates.server();
        var other = certificates.client("someone");
        var e = assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(options(server.certificateFile(), other.keyFile())));
        assertMentions(e, "does not match", other.keyFile().toString(), server.certificateFile().toString());
    }

    @Test
    void missingAndWrongFilesAreNamed() throws IOException {
        var server = certificates.server();
        var missing = directory.resolve("missing.crt");
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(options(missing, server.keyFile()))),
                "cert-file " + missing, "does not exist");
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(options(server.keyFile(), server.keyFile()))),
                "cert-file " + server.keyFile(), "no certificate");
        assertMentions(assertThrows(TlsConfigurationException.class,
                () -> TlsMaterial.load(options(server.certificateFile(), server.certificateFile()))),
                "key-file " + server.certificateFile(), "no private key");
        var caMissing = directory.resolve("no-ca.crt");
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(new TlsOptions(server.certificateFile(),
                server.keyFile(), Optional.of(caMissing), Optional.empty(), true, false))), "ca-file " + caMissing);
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(new TlsOptions(server.certificateFile(),
                server.keyFile(), Optional.empty(), Optional.empty(), true, false))), "need a ca-file");
    }

    @Test
    void aCaFileWithoutCertificatesAndANameWithoutACaAreRefused() throws IOException {
        var server = certificates.server();
        var empty = Files.writeString(directory.resolve("empty-ca.crt"), "# no certificate here\n");
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(new TlsOptions(server.certificateFile(),
                server.keyFile(), Optional.of(empty), Optional.empty(), false, false))), "ca-file " + empty, "no certificate");
        assertMentions(assertThrows(TlsConfigurationException.class, () -> TlsMaterial.load(new TlsOptions(server.certificateFile(),
                server.keyFile(), Optional.empty(), Optional.empty(), false, true))), "need a ca-file");
    }

    @Test
    void aLegacyEncryptedRsaKeyIsRead() throws Exception {
        var keys = keyPair("RSA");
        var key = pem("legacy-rsa.key", new JcaMiscPEMGenerator(keys.getPrivate(),
                new JcePEMEncryptorBuilder("AES-256-CBC").setProvider(BC).build("rsa secret".toCharArray())));
        assertTrue(Files.readString(key).contains("Proc-Type: 4,ENCRYPTED"));
        TlsMaterial.load(new TlsOptions(selfSigned("legacy-rsa", keys), key, Optional.empty(),
                Optional.of("rsa secret".toCharArray()), false, false));
    }

    @Test
    void certificateNamesAreReadFromTheSubject() {
        X509Certificate client = certificates.client("device, 7").certificate();
        assertEquals(Optional.of("device, 7"), CertificateNames.commonName(client));
    }

    /** A JDK server engine of the material's factories, configured as a listener's is (shards' ListenerTls, provider = jdk). */
    private static SSLEngine serverEngine(TlsMaterial material) throws Exception {
        var context = SSLContext.getInstance("TLS");
        context.init(material.keyManagers().getKeyManagers(),
                material.clientAuthorities().map(TrustManagerFactory::getTrustManagers).orElse(null), null);
        var engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        engine.setEnabledProtocols(TlsMaterial.PROTOCOLS.toArray(String[]::new));
        if (material.requiresClientCertificate()) {
            engine.setNeedClientAuth(true);
        } else if (material.clientAuthorities().isPresent()) {
            engine.setWantClientAuth(true);
        }
        return engine;
    }

    @Test
    void handshakesVerifyClientCertificatesAgainstTheCa() throws Exception {
        var server = certificates.server();
        var mutual = TlsMaterial.load(new TlsOptions(server.certificateFile(), server.keyFile(), Optional.of(certificates.caFile()),
                Optional.empty(), true, true));
        var withCertificate = InMemoryHandshake.run(certificates.clientContext(Optional.of(certificates.client("device-1"))),
                serverEngine(mutual));
        assertTrue(withCertificate.completed(), withCertificate.toString());
        assertTrue(List.of("TLSv1.3", "TLSv1.2").contains(withCertificate.protocol()), withCertificate.protocol());
        assertEquals(Optional.of("device-1"), CertificateNames.peerCommonName(withCertificate.server().getSession()));
        var without = InMemoryHandshake.run(certificates.clientContext(Optional.empty()), serverEngine(mutual));
        assertTrue(without.failed(), "a client without a certificate must fail the handshake: " + without);
        var stranger = InMemoryHandshake.run(certificates.clientContext(Optional.of(certificates.untrustedClient("device-1"))),
                serverEngine(mutual));
        assertTrue(stranger.failed(), "a certificate from another CA must fail the handshake: " + stranger);

        var serverOnly = TlsMaterial.load(options(server.certificateFile(), server.keyFile()));
        var plain = InMemoryHandshake.run(certificates.clientContext(Optional.empty()), serverEngine(serverOnly));
        assertTrue(plain.completed(), plain.toString());
        assertEquals(Optional.empty(), CertificateNames.peerCommonName(plain.server().getSession()));
    }
}
