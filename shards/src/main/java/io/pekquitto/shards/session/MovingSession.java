package io.pekquitto.shards.session;

/**
 * A session in a {@link SessionTransfer.Handover}: the live one ({@link MigratedSession}) while it moves
 * between the shards of one node, which share a heap and a store, or its {@link PortableSession} when it
 * goes to a shard on another node, which has its own store and reads only bytes.
 */
public sealed interface MovingSession permits MigratedSession, PortableSession {

    String clientId();
}
