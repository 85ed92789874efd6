package io.pekquitto.shards.store;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * What one shard writes to the {@link Store} and reads back: the retained messages published on this
 * shard (every shard keeps a copy of all of them; the one a message was published on writes it), and
 * its persistent sessions through its {@link #journal()}, which also reads back the queued messages
 * that wait in the store alone. A turn's writes go out together at {@link #flush()}: one numbered
 * batch, written at once on the shard's thread (the log goes to the operating system, which is quick),
 * so every read sees it. With {@code durability = fsync} the shard's {@link LogSyncer} thread then
 * syncs the log and tells the shard the number of the last batch synced, so the shard never waits for
 * the disk; with {@code batch} a written batch is done, and the acknowledgements waiting for it go
 * without a hop between threads. Used on the shard's thread only; without a store it does nothing and
 * every batch is number 0.
 */
public final class ShardPersistence {
    private final Optional<Store> store;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    private final StoreBatch batch;
    private final SessionJournal journal;
    /** Null unless {@code durability = fsync}. */
    private final LogSyncer syncer;
    /** The number of the last batch written. */
    private long written;
    /** This shard's run and count of messages relayed: the keys of RELAYED, unique across shards and restarts. */
    private final long relayRun = new SecureRandom().nextLong();
    private long relayed;

    /**
     * @param store     the broker's store on disk, or empty when nothing is kept ({@code store.enabled = false}
     *                  or {@code durability = none})
     * @param clock     the broker's nanosecond clock
     * @param wallClock milliseconds since the epoch ({@code System::currentTimeMillis}), which outlive a restart
     * @param writesWaiting called when the turn's first write is batched, from any actor on the shard's
     *                      thread (a connection's acknowledgement, say): the shard schedules a {@link #flush()}
     */
    public ShardPersistence(Optional<Store> store, LongSupplier clock, LongSupplier wallClock, Runnable writesWaiting) {
        this(store, clock, wallClock, writesWaiting, Integer.MAX_VALUE, false, "pekquitto-store-syncer", synced -> {},
                failure -> {});
    }

    /**
     * @param queuedInMemory how many of a persistent session's queued messages stay in the heap; the rest
     *                       wait in the store alone until the queue drains ({@code store.queued-in-memory})
     * @param syncBehind     a syncer thread syncs the log behind the shard ({@code durability = fsync})
     * @param syncerName     the name of the syncer thread
     * @param batchSynced    told the number of the last batch synced, on the syncer's thread
     * @param syncFailed     told why a sync failed, on the syncer's thread; nothing after it counts as synced
     */
    public ShardPersistence(Optional<Store> store, LongSupplier clock, LongSupplier wallClock, Runnable writesWaiting,
                            int queuedInMemory, boolean syncBehind, String syncerName, LongConsumer batchSynced,
                            Consumer<StoreException> syncFailed) {
        this.store = store;
        this.syncer = syncBehind
                ? store.map(kept -> new LogSyncer(kept, syncerName, batchSynced, syncFailed)).orElse(null) : null;
        this.batch = new StoreBatch(writesWaiting);
        this.clock = clock;
        this.wallClock = wallClock;
        this.journal = store.isPresent()
                ? new StoredSessions(store.get(), batch, this::flush, queuedInMemory, clock, wallClock)
                : SessionJournal.NONE;
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

    /**
     * A QoS 1/2 message forwarded to the shared subscription's member {@code clientId} with no
     * publisher's acknowledgement waiting for the destination's write: kept until the destination takes
     * it on ({@link #relayDone}), or delivered to the member's session by recovery. Returns its key;
     * null when nothing is kept (no store, or QoS 0).
     */
    public byte[] relay(String clientId, Message message) {
        if (store.isEmpty() || message.qos() == QoS.AT_MOST_ONCE) return null;
        var key = StoreKeys.relayed(relayRun, ++relayed);
        var id = StoreKeys.of(clientId);
        var record = MessageRecords.encode(message, clock.getAsLong(), wallClock.getAsLong());
        var value = ByteBuffer.allocate(Short.BYTES + id.length + record.length).putShort((short) id.length).put(id)
                .put(record).array();
        batch.put(Keyspace.RELAYED, key, value);
        return key;
    }

    /** A relayed message was taken on here (delivered, queued, or relayed again): its record goes with this batch. */
    public void relayDone(byte[] key) {
        if (key != null && store.isPresent()) batch.delete(Keyspace.RELAYED, key);
    }

    /**
     * Writes the turn's batch and returns its number (or the last batch's, if the turn wrote nothing);
     * 0 without a store. With a syncer it is synced later, and the shard is told.
     */
    public long flush() {
        if (store.isEmpty() || batch.isEmpty()) return written;
        store.get().write(StoreBatch.of(batch.take()));
        ++written;
        if (syncer != null) syncer.written(written);
        return written;
    }

    /** Whether the shard hears later when a batch is durable (its log synced); else it is when {@link #flush()} returns. */
    public boolean syncsBehind() {
        return syncer != null;
    }

    /**
     * Writes the turn's batch and waits until it and every batch before it are durable: when the shard stops.
     *
     * @throws StoreException if the syncer stopped on a failed sync first
     */
    public void flushNow() {
        long seq = flush();
        if (syncer == null) return;
        try {
            if (!syncer.awaitSynced(seq)) throw new StoreException("the store's log syncer stopped before batch " + seq, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the store", e);
        }
    }

    /** Writes and syncs what is left and stops the syncer thread (the shard stops or restarts). */
    public void close() {
        if (syncer == null) {
            flush();
            return;
        }
        try {
            flushNow();
        } catch (StoreException e) {
            // The syncer stopped on a failed sync, which it reported: what is left cannot be made durable.
        } finally {
            syncer.close();
        }
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
