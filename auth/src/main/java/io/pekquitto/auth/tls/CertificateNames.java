package io.pekquitto.auth.tls;

import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/** The subject common name of a certificate: what {@code cert-cn-as-username} makes the username. */
public final class CertificateNames {
    private CertificateNames() {}

    /** The certificate's subject CN (the first, if there are several), parsed as ASN.1, not split from a string. */
    public static Optional<String> commonName(X509Certificate certificate) {
        var subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        var names = subject.getRDNs(BCStyle.CN);
        if (names.length == 0 || names[0].getFirst() == null) return Optional.empty();
        var value = names[0].getFirst().getValue();
        // The string as is: valueToString would escape a ',' or '+' in it, as an RFC 4514 name does.
        return Optional.of(value instanceof ASN1String text ? text.getString() : IETFUtils.valueToString(value));
    }

    /** The CN of the peer's certificate, if it presented one and the handshake verified it. */
    public static Optional<String> peerCommonName(SSLSession session) {
        try {
            var chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate certificate ? commonName(certificate) : Optional.empty();
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
    }
}
