package io.pekquitto.auth.tls;

/** A TLS listener's files cannot be used; the message names the file and what is wrong with it. */
public final class TlsConfigurationException extends RuntimeException {
    public TlsConfigurationException(String message) {
        super(message);
    }

    public TlsConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
