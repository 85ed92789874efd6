package io.pekquitto.shards.settings;

import io.pekquitto.shards.store.Durability;
import io.pekquitto.shards.store.RocksStore;
import io.pekquitto.shards.store.Store;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the broker keeps what outlives the process ({@code pekquitto.store}).
 *
 * @param enabled    whether to use a store on disk ({@code store.enabled}); without one, nothing survives
 * @param path       the store's directory, created if missing ({@code store.path})
 * @param durability when a write counts as done ({@code store.durability}); {@code none} is memory only
 * @param queuedInMemory how many of a persistent session's queued messages stay in the heap; the rest
 *                   wait in the store alone and are read back as the queue drains ({@code store.queued-in-memory})
 */
public record StoreSettings(boolean enabled, Path path, Durability durability, int queuedInMemory) {
    /** The default of {@code store.queued-in-memory}. */
    public static final int QUEUED_IN_MEMORY = 100;

    public StoreSettings {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(durability, "durability");
        if (queuedInMemory < 2) {
            throw new IllegalArgumentException("store.queued-in-memory must be at least 2, not " + queuedInMemory);
        }
    }

    public StoreSettings(boolean enabled, Path path, Durability durability) {
        this(enabled, path, durability, QUEUED_IN_MEMORY);
    }

    /** Whether anything is written to disk. */
    public boolean durable() {
        return enabled && durability != Durability.NONE;
    }

    /**
     * The RocksDB store these settings describe, opened now; empty when nothing is kept on disk.
     *
     * @throws io.pekquitto.shards.store.StoreException naming the path and the cause when it cannot be opened
     */
    public Optional<Store> open() {
        return durable() ? Optional.of(RocksStore.open(path, durability)) : Optional.empty();
    }
}
