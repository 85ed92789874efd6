package io.pekquitto.shards.settings;

import io.pekquitto.protocol.ProtocolVersion;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One MQTT listener ({@code listeners.N}, over {@code listener-defaults}).
 *
 * @param host             the address it binds ({@code host})
 * @param port             the TCP port, 0 for a free one, for tests ({@code port})
 * @param tls              TLS, if the entry has a {@code tls.cert-file}
 * @param websocket        MQTT over WebSockets instead of plain MQTT, if {@code protocol = websocket}
 * @param proxyProtocol    whether every connection starts with a PROXY protocol v1 or v2 header that names
 *                         the client ({@code proxy-protocol}); without it a header is refused
 * @param maxConnections   connections this listener serves at once, -1 for no limit ({@code max-connections})
 * @param protocolVersions the MQTT versions a CONNECT may ask for here ({@code protocol-versions})
 * @param reusePort        whether each shard listens on the port with a socket of its own and serves what it
 *                         accepts ({@code SO_REUSEPORT}, epoll only), rather than one socket on a thread of
 *                         the listener's that hands each connection over ({@code reuse-port})
 */
public record ListenerSettings(String host, int port, Optional<TlsSettings> tls, Optional<WebSocketSettings> websocket,
                               boolean proxyProtocol, int maxConnections, Set<ProtocolVersion> protocolVersions,
                               boolean reusePort) {
    public static final int UNLIMITED = -1;

    public ListenerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(websocket, "websocket");
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port " + port + " is not 0-65535");
        if (maxConnections < 1 && maxConnections != UNLIMITED) {
            throw new IllegalArgumentException("max-connections " + maxConnections + " is neither -1 (no limit) nor at least 1");
        }
        if (protocolVersions.isEmpty()) throw new IllegalArgumentException("protocol-versions is empty");
        protocolVersions = Set.copyOf(protocolVersions);
    }

    /** A listener whose port is its own alone (no {@code reuse-port}), as by default. */
    public ListenerSettings(String host, int port, Optional<TlsSettings> tls, Optional<WebSocketSettings> websocket,
                            boolean proxyProtocol, int maxConnections, Set<ProtocolVersion> protocolVersions) {
        this(host, port, tls, websocket, proxyProtocol, maxConnections, protocolVersions, false);
    }

    /** A plain TCP listener, or a TLS one, with no limit, every version and no PROXY header. */
    public ListenerSettings(String host, int port, Optional<TlsSettings> tls) {
        this(host, port, tls, Optional.empty(), false, UNLIMITED, EnumSet.allOf(ProtocolVersion.class));
    }

    /** A plain TCP listener with no limit, every version and no PROXY header. */
    public ListenerSettings(String host, int port) {
        this(host, port, Optional.empty());
    }

    /** Whether a connection more is over {@code max-connections}, with {@code open} already served. */
    public boolean full(int open) {
        return maxConnections != UNLIMITED && open >= maxConnections;
    }
}
