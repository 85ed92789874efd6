package io.pekquitto.shards.settings;

/**
 * How the listeners spread new connections over the shards ({@code pekquitto.placement}). The client
 * id is not known when a connection is placed (CONNECT has not been read), so placement balances load;
 * a client whose session lives on another shard claims it through the mesh.
 */
public enum Placement {
    /** Each shard in turn: even spread for connections of similar weight. */
    ROUND_ROBIN,
    /** The shard with the fewest live connections: evens out after many clients of one shard leave. */
    LEAST_CONNECTIONS;

    /** Parses the configuration value ({@code round-robin} or {@code least-connections}). */
    public static Placement parse(String text) {
        return switch (text) {
            case "round-robin" -> ROUND_ROBIN;
            case "least-connections" -> LEAST_CONNECTIONS;
            default -> throw new IllegalArgumentException("placement must be round-robin or least-connections, not " + text);
        };
    }
}
