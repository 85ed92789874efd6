package io.pekquitto.e2e.websocket;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.security.SecurityFiles;

/** The broker {@link WebSocketIT} and {@link MqttJsIT} talk to: a TCP, a ws and a wss listener, in that order. */
final class TcpWsWss {
    static final int TCP = 0;
    static final int WS = 1;
    static final int WSS = 2;

    private TcpWsWss() {}

    /** The three listeners, on free ports of 127.0.0.1; the wss one with {@code certificates}' server certificate. */
    static String listeners(TestCertificates certificates) {
        return """
                listeners = [
                  { host = "127.0.0.1", port = 0 }
                  { host = "127.0.0.1", port = 0, protocol = websocket }
                  { host = "127.0.0.1", port = 0, protocol = websocket, tls { cert-file = %1$s, key-file = %2$s } }
                ]
                """.formatted(SecurityFiles.quoted(certificates.server().certificateFile()),
                SecurityFiles.quoted(certificates.server().keyFile()));
    }
}
