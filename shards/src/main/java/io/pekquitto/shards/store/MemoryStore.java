package io.pekquitto.shards.store;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/** A {@link Store} in memory ({@code store.durability = none}, and tests): the same contract, nothing survives. */
public final class MemoryStore implements Store {
    private final Map<Keyspace, TreeMap<byte[], byte[]>> keyspaces = new EnumMap<>(Keyspace.class);

    public MemoryStore() {
        for (var keyspace : Keyspace.values()) keyspaces.put(keyspace, new TreeMap<>(Arrays::compareUnsigned));
    }

    @Override
    public synchronized void write(StoreBatch batch) {
        for (var write : batch.writes()) {
            var entries = keyspaces.get(write.keyspace());
            if (write.end() != null) {
                entries.subMap(write.key(), write.end()).clear();
            } else if (write.value() == null) {
                entries.remove(write.key());
            } else {
                entries.put(write.key().clone(), write.value().clone());
            }
        }
    }

    @Override
    public synchronized Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        return Optional.ofNullable(keyspaces.get(keyspace).get(key)).map(byte[]::clone);
    }

    @Override
    public synchronized void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        var entries = keyspaces.get(keyspace);
        var range = to == null ? entries.tailMap(from, true) : entries.subMap(from, to);
        for (var stored : range.entrySet()) {
            if (!entry.test(stored.getKey().clone(), stored.getValue().clone())) return;
        }
    }

    @Override
    public void close() {}
}
