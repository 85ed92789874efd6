package io.pekquitto.shards.settings;

import java.util.Objects;

/**
 * A WebSocket listener's own settings ({@code protocol = websocket}).
 *
 * @param path       the HTTP path MQTT is served on ({@code path}, default {@code /mqtt})
 * @param statusPage whether {@code /} serves the status page ({@code status-page})
 */
public record WebSocketSettings(String path, boolean statusPage) {
    public WebSocketSettings {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) throw new IllegalArgumentException("path \"" + path + "\" does not start with /");
        if (path.equals("/") && statusPage) {
            throw new IllegalArgumentException("path \"/\" is the status page's: choose another path or status-page = false");
        }
    }
}
