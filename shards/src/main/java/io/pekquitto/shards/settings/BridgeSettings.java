package io.pekquitto.shards.settings;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One bridge to a remote broker ({@code pekquitto.bridges}, each entry over {@code bridge-defaults}):
 * where it connects, as whom, and which topics it carries which way. The root {@code application.conf}
 * documents every key with its Mosquitto equivalent; {@link BridgesReader} checks them.
 *
 * @param clientId          the client id at the remote (HOSTNAME.NAME unless configured)
 * @param localClientId     the client id of the bridge's session in this broker ("local." + clientId unless configured)
 * @param keepAliveSeconds  Keep Alive towards the remote, 1..65,535
 * @param notificationTopic where the link's state is published here, retained ("1" up, "0" down)
 */
public record BridgeSettings(String name, List<Address> addresses, boolean roundRobin, StartType startType, int threshold,
                             Duration idleTimeout, Duration restartBase, Duration restartCap, ProtocolVersion protocolVersion,
                             String clientId, String localClientId, Optional<String> username, Optional<String> password,
                             boolean cleanStart, boolean localCleanStart, int keepAliveSeconds, int maxInflight,
                             boolean tryPrivate, boolean notifications, String notificationTopic, Optional<Tls> tls,
                             List<Topic> topics) {

    /** When the link comes up: Mosquitto's {@code start_type}. */
    public enum StartType { AUTOMATIC, LAZY, ONCE }

    /** Which way a topic goes: out to the remote, in from it, or both. */
    public enum Direction {
        OUT, IN, BOTH;

        public boolean out() {
            return this != IN;
        }

        public boolean in() {
            return this != OUT;
        }
    }

    /** A remote broker's address, resolved when the bridge connects (a name may move). */
    public record Address(String host, int port) {
        public Address {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) throw new IllegalArgumentException("an address needs a host");
            if (port < 1 || port > 65_535) throw new IllegalArgumentException("port must be 1..65535, not " + port);
        }

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * TLS to the remote: its certificate verified against {@code caFile} (and its host name, unless
     * {@code insecure}), a client certificate presented if {@code certFile} is set.
     */
    public record Tls(Path caFile, Optional<Path> certFile, Optional<Path> keyFile, boolean insecure, Optional<String> alpn) {
        public Tls {
            Objects.requireNonNull(caFile, "caFile");
            if (certFile.isPresent() != keyFile.isPresent()) throw new IllegalArgumentException("cert-file and key-file go together");
        }
    }

    /**
     * A topic the bridge carries, with Mosquitto's prefixes: out, the bridge subscribes here to
     * {@code localPrefix + pattern} and a message's topic trades the local prefix for the remote one; in,
     * the other way round. An empty pattern maps the one topic {@code localPrefix} to {@code remotePrefix}.
     */
    public record Topic(String pattern, Direction direction, QoS qos, String localPrefix, String remotePrefix) {
        public Topic {
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(direction, "direction");
            Objects.requireNonNull(qos, "qos");
            Objects.requireNonNull(localPrefix, "localPrefix");
            Objects.requireNonNull(remotePrefix, "remotePrefix");
        }

        public Topic(String pattern, Direction direction, QoS qos) {
            this(pattern, direction, qos, "", "");
        }

        /** The filter the bridge subscribes to here (for out) or what a message from the remote becomes (in). */
        public String localFilter() {
            return localPrefix + pattern;
        }

        /** The filter the bridge subscribes to at the remote (for in). */
        public String remoteFilter() {
            return remotePrefix + pattern;
        }
    }

    public BridgeSettings {
        Objects.requireNonNull(name, "name");
        addresses = List.copyOf(addresses);
        topics = List.copyOf(topics);
        Objects.requireNonNull(startType, "startType");
        Objects.requireNonNull(protocolVersion, "protocolVersion");
        Objects.requireNonNull(tls, "tls");
        if (addresses.isEmpty()) throw new IllegalArgumentException("addresses must name at least one \"host:port\"");
        if (topics.isEmpty()) throw new IllegalArgumentException("topics must name at least one topic");
        if (threshold < 1) throw new IllegalArgumentException("threshold must be at least 1, not " + threshold);
        if (restartCap.compareTo(restartBase) < 0) throw new IllegalArgumentException("restart-timeout.cap must not be below its base");
        if (keepAliveSeconds < 1 || keepAliveSeconds > 65_535) {
            throw new IllegalArgumentException("keep-alive must be 1s..65535s, not " + keepAliveSeconds + "s");
        }
        if (maxInflight < 1 || maxInflight > 65_535) throw new IllegalArgumentException("max-inflight must be 1..65535, not " + maxInflight);
    }
}
