package io.pekquitto.shards.connection;

/**
 * Anything a shard actor receives. It is declared beside {@link ShardRequest}, the connection's own
 * protocol towards its shard, so that a connection can send to its shard without knowing the shard's
 * class (the two packages have no cycle); the shard's other messages implement it too.
 */
public interface ShardMessage {}
