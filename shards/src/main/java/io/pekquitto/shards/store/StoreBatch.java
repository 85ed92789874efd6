package io.pekquitto.shards.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The writes of one shard turn, applied together or not at all: the group commit that lets a shard
 * acknowledge many QoS 1/2 messages for one write, and move a session between shards atomically.
 */
public final class StoreBatch {
    /**
     * One write: a put when {@code value} is not null; a delete otherwise, of {@code key} alone, or of
     * every key from {@code key} (inclusive) to {@code end} (exclusive) when {@code end} is not null.
     */
    public record Write(Keyspace keyspace, byte[] key, byte[] value, byte[] end) {
        /** Whether it writes a key of {@code keyspace} from {@code from} (inclusive) to {@code to} (exclusive; null: no end). */
        boolean meets(Keyspace keyspace, byte[] from, byte[] to) {
            if (keyspace != this.keyspace) return false;
            if (end == null) return Arrays.compareUnsigned(key, from) >= 0 && (to == null || Arrays.compareUnsigned(key, to) < 0);
            return (to == null || Arrays.compareUnsigned(key, to) < 0) && Arrays.compareUnsigned(end, from) > 0;
        }
    }

    private List<Write> writes = new ArrayList<>();
    private final Runnable onFirstWrite;

    public StoreBatch() {
        this(() -> {});
    }

    /** @param onFirstWrite called when an empty batch gets its first write: the shard schedules the flush */
    public StoreBatch(Runnable onFirstWrite) {
        this.onFirstWrite = onFirstWrite;
    }

    public StoreBatch put(Keyspace keyspace, byte[] key, byte[] value) {
        return add(new Write(keyspace, key, value, null));
    }

    public StoreBatch delete(Keyspace keyspace, byte[] key) {
        return add(new Write(keyspace, key, null, null));
    }

    /** Deletes every key from {@code from} (inclusive) to {@code to} (exclusive). */
    public StoreBatch deleteRange(Keyspace keyspace, byte[] from, byte[] to) {
        return add(new Write(keyspace, from, null, to));
    }

    private StoreBatch add(Write write) {
        writes.add(write);
        if (writes.size() == 1) onFirstWrite.run();
        return this;
    }

    public boolean isEmpty() {
        return writes.isEmpty();
    }

    int size() {
        return writes.size();
    }

    List<Write> writes() {
        return writes;
    }

    /** Takes the writes out, for another thread to write; the batch is empty for the next turn. */
    List<Write> take() {
        var taken = writes;
        writes = new ArrayList<>();
        return taken;
    }

    /** A batch of writes taken from others ({@link StoreWriter}). */
    static StoreBatch of(List<Write> writes) {
        var batch = new StoreBatch();
        batch.writes = writes;
        return batch;
    }
}
