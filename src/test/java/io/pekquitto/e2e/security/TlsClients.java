package io.pekquitto.e2e.security;

import com.hivemq.client.mqtt.MqttClientSslConfig;
import io.pekquitto.auth.tls.TestCertificates;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** The TLS settings of a test's clients: trust in the test CA, and a client certificate when given. */
final class TlsClients {
    private static final char[] NO_PASSWORD = new char[0];

    private TlsClients() {}

    /** HiveMQ's TLS settings: TLS 1.3 and 1.2, the test CA trusted, {@code certificate} presented if given. */
    static MqttClientSslConfig hiveMq(X509Certificate ca, Optional<TestCertificates.Issued> certificate) {
        var builder = MqttClientSslConfig.builder().trustManagerFactory(trusting(ca)).protocols(List.of("TLSv1.3", "TLSv1.2"));
        certificate.ifPresent(issued -> builder.keyManagerFactory(presenting(issued)));
        return builder.build();
    }

    static TrustManagerFactory trusting(X509Certificate ca) {
        try {
            var store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("ca", ca);
            var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static KeyManagerFactory presenting(TestCertificates.Issued issued) {
        try {
            var store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("client", issued.privateKey(), NO_PASSWORD, new X509Certificate[] {issued.certificate()});
            var factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, NO_PASSWORD);
            return factory;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
