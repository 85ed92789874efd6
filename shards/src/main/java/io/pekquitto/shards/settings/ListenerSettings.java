package io.pekquitto.shards.settings;

import java.util.Objects;

/** One MQTT listener: the address and TCP port it binds (port 0 picks a free port, for tests). */
public record ListenerSettings(String host, int port) {
    public ListenerSettings {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port " + port + " is not 0-65535");
    }
}
