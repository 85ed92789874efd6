package io.pekquitto.shards.settings;

import java.util.Objects;
import java.util.Optional;

/**
 * One MQTT listener: the address and TCP port it binds (port 0 picks a free port, for tests), and TLS
 * if it has a {@code tls} section.
 */
public record ListenerSettings(String host, int port, Optional<TlsSettings> tls) {
    public ListenerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(tls, "tls");
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port " + port + " is not 0-65535");
    }

    /** A plain TCP listener. */
    public ListenerSettings(String host, int port) {
        this(host, port, Optional.empty());
    }
}
