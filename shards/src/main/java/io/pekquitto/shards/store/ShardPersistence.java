package io.pekquitto.shards.store;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
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
 * that wait in the store alone (through the writes not written yet: {@link ReadThrough}). A turn's writes go out
 * together at {@link #flush()}: one numbered batch. With {@code durability = fsync} it goes to the shard's
 * {@link StoreWriter} thread, which writes and syncs it (with the batches handed over meanwhile) and
 * tells the shard the number of the last one written, so the shard never waits for the disk; with
 * {@code batch}, where a write only hands the log to the operating system, it is written at once, on
 * the shard's thread, and the acknowledgements waiting for it go without a hop between threads.
 * A write that fails makes the {@link StoreHealth} failing and is kept, unwritten, with every batch after
 * it, until the store writes again ({@link #retry()}): then they are written, in order, before any other.
 * Used on the shard's thread only; without a store it does nothing and every batch is number 0.
 */
public final class ShardPersistence {
    private final Optional<Store> store;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    private final StoreBatch batch;
    private final SessionJournal journal;
    private final StoreHealth health;
    /** Null without a store, and with {@code durability = batch}. */
    private final StoreWriter writer;
    /** The number of the last batch taken from the turns. */
    private long submitted;
    /** Without a writer: the number of the last batch written, and the writes kept since one failed (else null). */
    private long written;
    private List<StoreBatch.Write> unwritten;
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
        this(store, new StoreHealth("store", clock), clock, wallClock, writesWaiting, Integer.MAX_VALUE, false,
                "pekquitto-store-writer", written -> {}, failure -> {});
    }

    /**
     * @param queuedInMemory how many of a persistent session's queued messages stay in the heap; the rest
     *                       wait in the store alone until the queue drains ({@code store.queued-in-memory})
     * @param writeBehind  batches are written by a writer thread ({@code durability = fsync}), not by the shard's
     * @param writerName   the name of the writer thread
     * @param health     told of a failed write (which makes it failing); while it is, batches are kept, not tried
     * @param batchWritten told the number of the last batch written, on the writer's thread
     * @param writeFailed  told why a write failed, on the writer's thread, after {@code health}; nothing is
     *                     written until {@link #retry()}
     */
    public ShardPersistence(Optional<Store> store, StoreHealth health, LongSupplier clock, LongSupplier wallClock,
                            Runnable writesWaiting, int queuedInMemory, boolean writeBehind, String writerName,
                            LongConsumer batchWritten, Consumer<StoreException> writeFailed) {
        this.store = store;
        this.health = health;
        Consumer<StoreException> failed = failure -> {
            health.failed(failure);
            writeFailed.accept(failure);
        };
        this.writer = writeBehind
                ? store.map(kept -> new StoreWriter(kept, writerName, batchWritten, failed)).orElse(null) : null;
        this.batch = new StoreBatch(writesWaiting);
        this.clock = clock;
        this.wallClock = wallClock;
        this.journal = store.isPresent()
                ? new StoredSessions(new ReadThrough(store.get(), this::unwritten), batch, () -> !hasUnwritten(), queuedInMemory,
                        clock, wallClock)
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

    /** The writes in the turn's batch so far: whether something routed wrote any. */
    public int batchedWrites() {
        return batch.size();
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
     * Hands the turn's writes to the writer thread and returns at once, or writes them on this thread
     * ({@code durability = batch}): the number of the batch that holds them (or of the last batch, if
     * the turn wrote nothing); 0 without a store. While the store fails they are kept, not written.
     */
    public long flush() {
        if (store.isEmpty() || batch.isEmpty()) return submitted;
        var writes = batch.take();
        ++submitted;
        if (writer != null) {
            writer.submit(writes, submitted);
        } else if (unwritten != null || health.isFailing()) {
            keep(writes);
        } else {
            write(writes);
        }
        return submitted;
    }

    private void write(List<StoreBatch.Write> writes) {
        try {
            store.get().write(StoreBatch.of(writes));
            written = submitted;
        } catch (StoreException e) {
            keep(writes);
            health.failed(e);
        }
    }

    private void keep(List<StoreBatch.Write> writes) {
        if (unwritten == null) unwritten = new ArrayList<>(writes.size());
        unwritten.addAll(writes);
    }

    /** The store writes again: the writes kept since one failed are written now (with a writer: next). */
    public void retry() {
        if (writer != null) {
            writer.retry();
        } else if (unwritten != null) {
            var writes = unwritten;
            unwritten = null;
            write(writes);
        }
    }

    /** Whether batches are written behind the shard's back (then the shard hears when); else when {@link #flush()} returns. */
    public boolean writesBehind() {
        return writer != null;
    }

    /** Without a writer: the number of the last batch written (as {@link #flush()} numbers them). */
    public long written() {
        return written;
    }

    /** Whether batch {@code batch} (as {@link #flush()} numbers them) is written: with a writer, the shard hears when. */
    public boolean isWritten(long batch) {
        return writer != null ? writer.hasWritten(batch) : unwritten == null && written >= batch;
    }

    /** Whether writes wait because one failed: they are written at {@link #retry()}. */
    public boolean hasUnwritten() {
        return writer != null ? writer.isStalled() : unwritten != null;
    }

    /**
     * The writes of this shard not known to be written that meet the keys of {@code keyspace} from
     * {@code from} to {@code to}, oldest first: those the writer has (being written, or waiting), or those
     * kept since a write failed, then the turn's so far. A read of the store through them
     * ({@link ReadThrough}) sees what it will hold, without waiting for it.
     */
    private List<StoreBatch.Write> unwritten(Keyspace keyspace, byte[] from, byte[] to) {
        var unwritten = writer != null ? writer.unwritten(keyspace, from, to) : new ArrayList<StoreBatch.Write>();
        if (writer == null && this.unwritten != null) {
            for (var write : this.unwritten) if (write.meets(keyspace, from, to)) unwritten.add(write);
        }
        for (var write : batch.writes()) if (write.meets(keyspace, from, to)) unwritten.add(write);
        return unwritten;
    }

    /**
     * Writes the turn's batch and waits until it and every batch before it are written: when the shard
     * stops (a read goes through what is not written yet instead, and a session moving to another shard
     * is handed over once its writes are written, see {@link #isWritten}).
     *
     * @return false if they are not written, and will not be soon: a write failed, the store is failing
     */
    public boolean flushNow() {
        long seq = flush();
        if (writer == null) return unwritten == null;
        if (writer.hasWritten(seq)) return true;
        try {
            return writer.awaitWritten(seq);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Writes what is left and stops the writer thread (the shard stops or restarts); what cannot be written is lost, unacknowledged. */
    public void close() {
        flushNow();
        if (writer != null) writer.close();
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
