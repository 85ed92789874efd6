package io.pekquitto.shards.settings;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Several brokers as one cluster on Pekko Cluster ({@code pekquitto.cluster}, docs/cluster.md). Plain
 * settings: the cluster module turns them into the actor system's Pekko configuration, and no Pekko
 * Cluster type appears here, so that a broker without a cluster loads none.
 *
 * @param enabled   whether the broker's actor system joins a cluster ({@code cluster.enabled})
 * @param host      the address other nodes reach this node's cluster port at, which it also binds
 *                  ({@code cluster.host})
 * @param port      the node's cluster port (Pekko Artery over TCP), 0 for any free one ({@code cluster.port})
 * @param bindPort  the port the node binds, when the others reach {@code port} through a proxy or a NAT; 0: {@code port}
 *                  itself ({@code cluster.bind-port})
 * @param seedNodes the nodes a starting node asks to join, other nodes' cluster ports; empty: the node
 *                  forms a cluster of its own, which others may join ({@code cluster.seed-nodes})
 * @param downing   how unreachable nodes are downed: Pekko's Split Brain Resolver ({@code cluster.downing})
 */
public record ClusterSettings(boolean enabled, String host, int port, int bindPort, List<SeedNode> seedNodes, Downing downing) {

    /** The built-in cluster settings, off; what a test or an embedder starts from. */
    public static final ClusterSettings OFF = new ClusterSettings(false, "127.0.0.1", 25520, 0, List.of(),
            new Downing(DowningStrategy.KEEP_MAJORITY, Duration.ofSeconds(20)));

    public ClusterSettings {
        Objects.requireNonNull(host, "host");
        seedNodes = List.copyOf(seedNodes);
        Objects.requireNonNull(downing, "downing");
        if (host.isBlank()) throw new IllegalArgumentException("cluster.host must name an address, not \"" + host + "\"");
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("cluster.port must be 0..65535, not " + port);
        if (bindPort < 0 || bindPort > 65_535) throw new IllegalArgumentException("cluster.bind-port must be 0..65535, not " + bindPort);
    }

    /**
     * Another node's cluster port, {@code "host:port"} in the configuration ({@code "[::1]:25520"} for an
     * IPv6 address).
     */
    public record SeedNode(String host, int port) {
        public SeedNode {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) throw new IllegalArgumentException("a seed node needs a host");
            if (port < 1 || port > 65_535) throw new IllegalArgumentException("a seed node's port must be 1..65535, not " + port);
        }

        /** {@code "host:port"}; empty when {@code text} is not one. */
        public static Optional<SeedNode> parse(String text) {
            var value = text.strip();
            int colon = value.lastIndexOf(':');
            if (colon <= 0 || colon == value.length() - 1) return Optional.empty();
            var host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
            if (host.isBlank() || host.contains(":") && !value.startsWith("[") || host.contains("[") || host.contains("]")) {
                return Optional.empty();
            }
            var port = value.substring(colon + 1);
            if (!port.chars().allMatch(Character::isDigit) || port.length() > 5) return Optional.empty();
            int number = Integer.parseInt(port);
            return number < 1 || number > 65_535 ? Optional.empty() : Optional.of(new SeedNode(host, number));
        }

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * The Split Brain Resolver's choice: which side of a partition, or which survivors of a crash, stay up
     * and down the rest.
     *
     * @param strategy    the strategy ({@code cluster.downing.strategy})
     * @param stableAfter how long membership must stay unchanged, with a node unreachable, before the
     *                    resolver decides ({@code cluster.downing.stable-after})
     */
    public record Downing(DowningStrategy strategy, Duration stableAfter) {
        public Downing {
            Objects.requireNonNull(strategy, "strategy");
            Objects.requireNonNull(stableAfter, "stableAfter");
            if (stableAfter.isNegative() || stableAfter.isZero()) {
                throw new IllegalArgumentException("cluster.downing.stable-after must be longer than 0s, not " + stableAfter);
            }
        }
    }

    /** The Split Brain Resolver strategies a broker may use (Pekko's names). */
    public enum DowningStrategy {
        /** The side with more than half of the nodes stays; on a tie, the side with the lowest address. */
        KEEP_MAJORITY,
        /** The side with the oldest node stays; the oldest node alone goes down with its side of one. */
        KEEP_OLDEST;

        /** Pekko's name of the strategy: {@code keep-majority}, {@code keep-oldest}. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The strategy of that name; empty for another one. */
        public static Optional<DowningStrategy> parse(String name) {
            for (var strategy : values()) if (strategy.configName().equals(name)) return Optional.of(strategy);
            return Optional.empty();
        }
    }
}
