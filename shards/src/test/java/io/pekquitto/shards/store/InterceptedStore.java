package io.pekquitto.shards.store;

import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/** A {@link MemoryStore} whose writes a test slows down or fails: {@code beforeWrite} runs first. */
final class InterceptedStore implements Store {
    private final MemoryStore kept;
    private final Consumer<StoreBatch> beforeWrite;

    InterceptedStore(MemoryStore kept, Consumer<StoreBatch> beforeWrite) {
        this.kept = kept;
        this.beforeWrite = beforeWrite;
    }

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
    public void close() {}
}
