package io.pekquitto.shards.store;

import io.pekquitto.shards.session.Message;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What one shard writes to the {@link Store} and reads back at start: today the retained messages
 * published on this shard (every shard keeps a copy of all of them; the one a message was published
 * on writes it). A turn's writes go out together at {@link #flush()}: one batch, one write.
 * Used on the shard's thread only; without a store it does nothing.
 */
public final class ShardPersistence {
    private final Optional<Store> store;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    private final StoreBatch batch = new StoreBatch();

    /**
     * @param store     the broker's store, or empty when nothing is kept on disk
     * @param clock     the broker's nanosecond clock
     * @param wallClock milliseconds since the epoch ({@code System::currentTimeMillis}), which outlive a restart
     */
    public ShardPersistence(Optional<Store> store, LongSupplier clock, LongSupplier wallClock) {
        this.store = store;
        this.clock = clock;
        this.wallClock = wallClock;
    }

    /**
     * A retained message published here, or its removal (an empty payload), for the turn's batch.
     *
     * @return whether it was batched, so the turn must end with a {@link #flush()}; false without a store
     */
    public boolean retained(Message message) {
        if (store.isEmpty()) return false;
        var key = RetainedRecords.key(message.topic());
        if (message.payload().isEmpty()) {
            batch.delete(Keyspace.RETAINED, key);
        } else {
            batch.put(Keyspace.RETAINED, key, RetainedRecords.encode(message, clock.getAsLong(), wallClock.getAsLong()));
        }
        return true;
    }

    /** Writes the turn's batch; when it returns, the batch is as durable as the store's mode. */
    public void flush() {
        if (store.isEmpty() || batch.isEmpty()) return;
        store.get().write(batch);
        batch.clear();
    }

    /** The stored retained messages that have not expired, to the shard's copy; returns how many. */
    public int recoverRetained(Consumer<Message> into) {
        if (store.isEmpty()) return 0;
        long now = clock.getAsLong();
        long wall = wallClock.getAsLong();
        int[] count = {0};
        store.get().forEach(Keyspace.RETAINED, (key, value) -> RetainedRecords.decode(value, now, wall).ifPresent(message -> {
            into.accept(message);
            count[0]++;
        }));
        return count[0];
    }
}
