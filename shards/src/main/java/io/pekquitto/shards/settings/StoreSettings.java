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
 */
public record StoreSettings(boolean enabled, Path path, Durability durability) {
    public StoreSettings {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(durability, "durability");
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
