package io.pekquitto.shards.store;

/** When a write batch counts as done, and so when a QoS 1/2 PUBLISH in it may be acknowledged. */
public enum Durability {
    /** In memory only: nothing survives the process. */
    NONE,
    /** Handed to the operating system per batch (RocksDB's write-ahead log, no fsync): survives a process kill. */
    BATCH,
    /** Fsync'd per batch: survives a power loss. */
    FSYNC
}
