package io.pekquitto.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/** The bench's TLS client context: trusting a PEM CA file, or (benchmark only) any certificate. */
final class TlsContexts {
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TlsContexts() {}

    /** Trusts the CA certificates in {@code caFile} (PEM), or anything when it is null. */
    static SSLContext client(Path caFile) {
        try {
            var context = SSLContext.getInstance("TLS");
            context.init(null, caFile == null ? new TrustManager[] {new TrustingAnything()} : trusting(caFile), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new Options.UsageException("cannot use " + caFile + " as a CA file: " + e.getMessage());
        }
    }

    private static TrustManager[] trusting(Path caFile) throws GeneralSecurityException, IOException {
        var store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caFile)) {
            int i = 0;
            for (var certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            if (i == 0) throw new GeneralSecurityException("no certificate in it");
        }
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory.getTrustManagers();
    }

    /** Without --cafile: a load generator measures the broker, not the certificate checks. */
    private static final class TrustingAnything implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
