package io.pekquitto.shards.store;

import java.nio.charset.StandardCharsets;

/** The kinds of state the store keeps apart: a column family each in RocksDB, so each is scanned alone at recovery. */
public enum Keyspace {
    /** Persistent sessions: expiry, subscriptions, shared-group memberships; by client id. */
    SESSIONS,
    /** Retained messages, by topic. */
    RETAINED,
    /** Messages queued for offline sessions, by client id and sequence. */
    QUEUED,
    /** QoS 1/2 state in flight both ways, by client id and packet identifier. */
    IN_FLIGHT,
    /** Wills waiting out a Will Delay Interval, by client id. */
    WILLS,
    /**
     * Messages on their way between shards to a shared subscription's member with no publisher's
     * acknowledgement waiting for them: written by the sending shard, deleted by the receiving one with
     * its own write, and delivered to the member's session by recovery if the broker stopped between.
     */
    RELAYED;

    /** The column family's name, as RocksDB lists it. */
    byte[] columnFamily() {
        return name().toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
    }
}
