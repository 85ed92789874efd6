package io.pekquitto.e2e.store;

import io.pekquitto.shards.store.Keyspace;
import io.pekquitto.shards.store.Store;
import io.pekquitto.shards.store.StoreBatch;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The broker's own store with a test's step before each write and each attempt to recover: a write that
 * fails as on a full disk ({@link FaultyStoreBroker}), or one that waits as on a slow one ({@link SlowDiskIT}).
 * Reads go straight through.
 */
record InterceptedStore(Store store, Runnable beforeWrite) implements Store {
    @Override
    public void write(StoreBatch batch) {
        beforeWrite.run();
        store.write(batch);
    }

    @Override
    public void recover() {
        beforeWrite.run();
        store.recover();
    }

    @Override
    public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        return store.get(keyspace, key);
    }

    @Override
    public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        store.scan(keyspace, from, to, entry);
    }

    @Override
    public long sizeOnDisk() {
        return store.sizeOnDisk();
    }

    @Override
    public long freeSpace() {
        return store.freeSpace();
    }

    @Override
    public void close() {
        store.close();
    }
}
