package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a {@link Shard} tells itself, from its parts: its timers, the ends of its connection actors, its store's
 * writer thread and the end of its turn. No other actor sends them.
 */
sealed interface ShardInternal extends ShardMessage {

    /** A connection actor stopped ({@link ShardConnections} watches each). */
    record ConnectionStopped(ConnectionRef connection, ActorRef<Connection.Command> actor) implements ShardInternal {}

    /** A parked connection was told something, or one's CONNECT is whole: spawn its actor. */
    record ResumeParked(ConnectionRef connection) implements ShardInternal {}

    /** The earliest deadline of a connection has come, or one earlier than the timer's was set. */
    enum DeadlineCheck implements ShardInternal { INSTANCE }

    /** A session's expiry timer ({@link ShardSessions}). */
    record SessionExpiryCheck(String clientId, long generation) implements ShardInternal {}

    /** A will's delay timer ({@link ShardSessions}). */
    record WillDelayExpired(String clientId, long generation) implements ShardInternal {}

    /** From the store's writer thread: this shard's batches up to {@code batch} are written. */
    record BatchWritten(long batch) implements ShardInternal {}

    /** From the store's writer thread: a write failed; the writer keeps it, and what follows, until the store recovers. */
    enum WriteFailed implements ShardInternal { INSTANCE }

    /** Sent to self when the first delivery or forward of a turn is queued: all of the turn goes out in batches. */
    enum Flush implements ShardInternal { INSTANCE }

    /** Sent to self while the shard evacuates its sessions, every {@code ShardEvacuation.CHECK}. */
    enum EvacuationCheck implements ShardInternal { INSTANCE }
}
