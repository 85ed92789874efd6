package io.pekquitto.shards.store;

import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

/**
 * Where the broker keeps what must outlive the process (docs/sessions-and-store.md, The store): one
 * for the broker, written by every shard, each with batches of its own turns. Implementations are
 * thread-safe.
 */
public interface Store extends AutoCloseable {

    /** Applies {@code batch} atomically; when it returns, the batch is as durable as the store's {@link Durability}. */
    void write(StoreBatch batch);

    Optional<byte[]> get(Keyspace keyspace, byte[] key);

    /** Every entry of {@code keyspace}, in unsigned byte order of the keys: for recovery at start. */
    default void forEach(Keyspace keyspace, BiConsumer<byte[], byte[]> entry) {
        scan(keyspace, new byte[0], null, (key, value) -> {
            entry.accept(key, value);
            return true;
        });
    }

    /**
     * The entries of {@code keyspace} from {@code from} (inclusive) to {@code to} (exclusive; null: to the
     * end), in unsigned byte order of the keys, until {@code entry} returns false.
     */
    void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry);

    @Override
    void close();

    /** Bytes the store takes on disk now, for $SYS and the metrics; 0 for a store in memory. */
    default long sizeOnDisk() {
        return 0;
    }

    /** Bytes free for the store on its filesystem, for $SYS and the metrics; -1 for a store in memory. */
    default long freeSpace() {
        return -1;
    }

    /**
     * After a failed write: makes the store writable again if it can, which a write that succeeds
     * proves (RocksDB keeps failing every write after one failed, until it is reopened). Called by
     * {@link StoreRecovery} only, while the shards hold their writes back.
     *
     * @throws StoreException naming the cause if it cannot write yet (the disk is still full, say)
     */
    default void recover() {}
}
