package io.pekquitto.shards.store;

import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Where the broker keeps what must outlive the process (DESIGN.md, Persistence): one for the broker,
 * written by every shard, each with batches of its own turns. Implementations are thread-safe.
 */
public interface Store extends AutoCloseable {

    /** Applies {@code batch} atomically; when it returns, the batch is as durable as the store's {@link Durability}. */
    void write(StoreBatch batch);

    Optional<byte[]> get(Keyspace keyspace, byte[] key);

    /** Every entry of {@code keyspace}, in unsigned byte order of the keys: for recovery at start. */
    void forEach(Keyspace keyspace, BiConsumer<byte[], byte[]> entry);

    @Override
    void close();
}
