package io.pekquitto.shards.store;

import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * A store whose writes a test slows down or fails, as a slow or a full disk would: {@code beforeWrite}
 * runs before each write, and before each attempt to {@link #recover()} (which RocksDB's store proves
 * with a write), with an empty batch then. Reads go straight through. Also the end-to-end tests', around
 * a broker's real store (shards' test jar).
 */
public final class InterceptedStore implements Store {
    private final Store kept;
    private final Consumer<StoreBatch> beforeWrite;

    public InterceptedStore(Store kept, Consumer<StoreBatch> beforeWrite) {
        this.kept = kept;
        this.beforeWrite = beforeWrite;
    }

    /** Around a {@link MemoryStore} of its own. */
    InterceptedStore(Consumer<StoreBatch> beforeWrite) {
        this(new MemoryStore(), beforeWrite);
    }

    /** Waits {@code millis} before each write, as a slow disk would. */
    static Consumer<StoreBatch> sleeping(long millis) {
        return batch -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    @Override
    public void write(StoreBatch batch) {
        beforeWrite.accept(batch);
        kept.write(batch);
    }

    @Override
    public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        return kept.get(keyspace, key);
    }

    @Override
    public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        kept.scan(keyspace, from, to, entry);
    }

    @Override
    public void recover() {
        beforeWrite.accept(new StoreBatch());
        kept.recover();
    }

    @Override
    public long sizeOnDisk() {
        return kept.sizeOnDisk();
    }

    @Override
    public long freeSpace() {
        return kept.freeSpace();
    }

    @Override
    public void close() {
        kept.close();
    }
}
