package io.pekquitto.shards.listener;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.settings.ListenerSettings;
import java.util.Objects;

/**
 * One listener as the connections it accepts see it: the MQTT versions a CONNECT may ask for there,
 * whether each connection begins with a PROXY protocol header, and its count of open connections
 * against {@code max-connections}. The broker makes one per
 * configured listener, whatever its kind (TCP, TLS, WebSocket), and hands it with every connection
 * accepted there, so that a listener's rule holds alike on every kind. Its settings are immutable and
 * its count thread-safe: the accepting thread and the shards' threads share it.
 */
public final class Listener {
    private final int index;
    private final ListenerSettings settings;
    private final ConnectionCount connections;

    private Listener(int index, ListenerSettings settings) {
        this.index = index;
        this.settings = Objects.requireNonNull(settings, "settings");
        this.connections = new ConnectionCount(settings);
    }

    /** Listener {@code index} of the configuration ({@code listeners.N}), with its settings. */
    public static Listener of(int index, ListenerSettings settings) {
        return new Listener(index, settings);
    }

    /** Its place in {@code listeners}, from 0. */
    public int index() {
        return index;
    }

    public ListenerSettings settings() {
        return settings;
    }

    /**
     * Its open connections: a new one takes a place with {@link ConnectionCount#tryOpen} before a byte is
     * read (refused and closed if there is none), and gives it back once closed, whatever closed it.
     */
    public ConnectionCount connections() {
        return connections;
    }

    /**
     * Whether every connection here begins with a PROXY protocol header ({@code proxy-protocol}): its
     * transport reads it before it hands any byte on (before TLS and HTTP too), and closes a connection
     * without a valid one. Elsewhere a header is not looked for: its bytes are a bad packet.
     */
    public boolean expectsProxyHeader() {
        return settings.proxyProtocol();
    }

    /** Whether a CONNECT may ask for {@code version} here ({@code protocol-versions}). */
    public boolean accepts(ProtocolVersion version) {
        return settings.protocolVersions().contains(version);
    }

    @Override
    public String toString() {
        return "listener " + index + " (" + settings.host() + ":" + settings.port() + ")";
    }
}
