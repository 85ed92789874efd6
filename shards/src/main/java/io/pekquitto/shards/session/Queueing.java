package io.pekquitto.shards.session;

/** What became of a message offered to a session's queue ({@link Session#offer}). */
public enum Queueing {
    /** Queued, in the heap or in the journal alone. */
    QUEUED,
    /** Dropped: past {@code max-queued-messages} or {@code max-queued-bytes}, or QoS 0 for an offline client. */
    FULL,
    /** Dropped, and counted by the memory budget: neither the client's share nor the shard's budget had room. */
    OVER_BUDGET
}
