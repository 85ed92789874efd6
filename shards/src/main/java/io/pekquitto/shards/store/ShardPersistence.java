package io.pekquitto.shards.store;

import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * What one shard writes to the {@link Store} and reads back at start: the retained messages published
 * on this shard (every shard keeps a copy of all of them; the one a message was published on writes
 * it), and its persistent sessions through its {@link #journal()}. A turn's writes go out together at
 * {@link #flush()}: one batch, one write. Used on the shard's thread only; without a store it does
 * nothing.
 */
public final class ShardPersistence {
    private final Optional<Store> store;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    private final StoreBatch batch;
    private final SessionJournal journal;

    /**
     * @param store     the broker's store on disk, or empty when nothing is kept ({@code store.enabled = false}
     *                  or {@code durability = none})
     * @param clock     the broker's nanosecond clock
     * @param wallClock milliseconds since the epoch ({@code System::currentTimeMillis}), which outlive a restart
     * @param writesWaiting called when the turn's first write is batched, from any actor on the shard's
     *                      thread (a connection's acknowledgement, say): the shard schedules a {@link #flush()}
     */
    public ShardPersistence(Optional<Store> store, LongSupplier clock, LongSupplier wallClock, Runnable writesWaiting) {
        this.store = store;
        this.batch = new StoreBatch(writesWaiting);
        this.clock = clock;
        this.wallClock = wallClock;
        this.journal = store.isPresent() ? new StoredSessions(batch, clock, wallClock) : SessionJournal.NONE;
    }

    /** Whether there is a store: then QoS 1/2 acknowledgements wait for the shard's writes. */
    public boolean isDurable() {
        return store.isPresent();
    }

    /** Where this shard's persistent sessions write their changes (into the turn's batch). */
    public SessionJournal journal() {
        return journal;
    }

    /** A retained message published here, or its removal (an empty payload), for the turn's batch. */
    public void retained(Message message) {
        if (store.isEmpty()) return;
        var key = StoreKeys.of(message.topic());
        if (message.payload().isEmpty()) {
            batch.delete(Keyspace.RETAINED, key);
        } else {
            batch.put(Keyspace.RETAINED, key, MessageRecords.encode(message, clock.getAsLong(), wallClock.getAsLong()));
        }
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
        store.get().forEach(Keyspace.RETAINED, (key, value) -> MessageRecords.decode(value, now, wall).ifPresent(message -> {
            into.accept(message);
            count[0]++;
        }));
        return count[0];
    }

    /**
     * The persistent sessions whose home is {@code shard} of {@code shards}, rebuilt with
     * {@code newSession} and journaling to this shard; what expired meanwhile is deleted at the next flush.
     */
    public List<RecoveredSession> recoverSessions(int shard, int shards, Function<String, Session> newSession) {
        if (store.isEmpty()) return List.of();
        var recovery = new SessionRecovery(store.get(), batch, clock.getAsLong(), wallClock.getAsLong());
        return recovery.recover(shard, shards, newSession, journal);
    }
}
