package io.pekquitto.shards.store;

import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one shard turn, applied together or not at all: the group commit that lets a shard
 * acknowledge many QoS 1/2 messages for one write, and move a session between shards atomically.
 */
public final class StoreBatch {
    /** One write: a put when {@code value} is not null, a delete otherwise. */
    public record Write(Keyspace keyspace, byte[] key, byte[] value) {}

    private final List<Write> writes = new ArrayList<>();

    public StoreBatch put(Keyspace keyspace, byte[] key, byte[] value) {
        writes.add(new Write(keyspace, key, value));
        return this;
    }

    public StoreBatch delete(Keyspace keyspace, byte[] key) {
        writes.add(new Write(keyspace, key, null));
        return this;
    }

    public boolean isEmpty() {
        return writes.isEmpty();
    }

    List<Write> writes() {
        return writes;
    }

    /** Empties the batch for the next turn, once it has been written. */
    public void clear() {
        writes.clear();
    }
}
