package io.pekquitto.auth.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Certificates and private keys read from PEM files with Bouncy Castle: the formats OpenSSL and
 * Mosquitto users have (PKCS#8, encrypted PKCS#8, PKCS#1 RSA and EC keys, legacy encrypted PEM).
 * Every failure names the file.
 */
final class PemFiles {
    /** For decrypting keys only: Bouncy Castle's PBE ciphers, not registered in the JVM. */
    private static final BouncyCastleProvider PROVIDER = new BouncyCastleProvider();

    private PemFiles() {}

    /** The certificates of {@code file}, in order; at least one. */
    static List<X509Certificate> certificates(Path file, String role) {
        var certificates = new ArrayList<X509Certificate>();
        var converter = new JcaX509CertificateConverter();
        try (var parser = new PEMParser(open(file, role))) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof X509CertificateHolder holder) certificates.add(converter.getCertificate(holder));
            }
        } catch (IOException | CertificateException e) {
            throw new TlsConfigurationException(role + " " + file + " is not a PEM certificate file: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new TlsConfigurationException(role + " " + file + " holds no certificate (no BEGIN CERTIFICATE block)");
        }
        return certificates;
    }

    /** The first private key of {@code file}, decrypted with {@code password} if it is encrypted. */
    static PrivateKey privateKey(Path file, Optional<char[]> password) {
        var converter = new JcaPEMKeyConverter();
        try (var parser = new PEMParser(open(file, "key-file"))) {
            for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
                if (object instanceof PrivateKeyInfo info) return converter.getPrivateKey(info);
                // The private part only: an EC key may come without its public key, which getKeyPair needs.
                if (object instanceof PEMKeyPair pair) return converter.getPrivateKey(pair.getPrivateKeyInfo());
                if (object instanceof PKCS8EncryptedPrivateKeyInfo encrypted) {
                    var decryptor = new JceOpenSSLPKCS8DecryptorProviderBuilder().setProvider(PROVIDER)
                            .build(required(password, file));
                    return converter.getPrivateKey(encrypted.decryptPrivateKeyInfo(decryptor));
                }
                if (object instanceof PEMEncryptedKeyPair encrypted) {
                    var decryptor = new JcePEMDecryptorProviderBuilder().setProvider(PROVIDER).build(required(password, file));
                    return converter.getPrivateKey(encrypted.decryptKeyPair(decryptor).getPrivateKeyInfo());
                }
            }
        } catch (PKCSException | OperatorCreationException | org.bouncycastle.openssl.EncryptionException e) {
            throw new TlsConfigurationException("key-file " + file + " cannot be decrypted: wrong key-password?", e);
        } catch (PEMException e) {
            throw new TlsConfigurationException("key-file " + file + " cannot be read: " + e.getMessage()
                    + (password.isPresent() ? " (wrong key-password?)" : ""), e);
        } catch (IOException e) {
            throw new TlsConfigurationException("key-file " + file + " cannot be read: " + e.getMessage(), e);
        }
        throw new TlsConfigurationException("key-file " + file + " holds no private key (no BEGIN ... PRIVATE KEY block)");
    }

    private static char[] required(Optional<char[]> password, Path file) {
        return password.orElseThrow(() -> new TlsConfigurationException(
                "key-file " + file + " is encrypted: set its key-password"));
    }

    private static Reader open(Path file, String role) {
        try {
            return Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            throw new TlsConfigurationException(role + " " + file + " does not exist");
        } catch (IOException e) {
            throw new TlsConfigurationException(role + " " + file + " cannot be read: " + e.getMessage(), e);
        }
    }
}
