package io.pekquitto.shards.store;

import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;

/**
 * The {@link SessionJournal} of one shard: every change of its persistent sessions as writes in the
 * shard's batch ({@link ShardPersistence#flush()} writes them), and the queued messages read back from
 * the store. Times are turned from the broker's nanosecond clock into wall-clock milliseconds, which
 * outlive the process.
 */
final class StoredSessions implements SessionJournal {
    private static final byte[] EMPTY = new byte[0];

    /** The store as the shard's writes will leave it, the turn's so far included: a read waits for no write. */
    private final Store reads;
    private final StoreBatch batch;
    /** Whether the shard's writes go on: false while one that failed waits for the store. */
    private final BooleanSupplier writing;
    private final int queuedInMemory;
    private final LongSupplier clock;
    private final LongSupplier wallClock;
    /** The last message written and its record: a message routed to N sessions is encoded once. */
    private Message lastMessage;
    private byte[] lastRecord;

    StoredSessions(Store reads, StoreBatch batch, BooleanSupplier writing, int queuedInMemory, LongSupplier clock,
                   LongSupplier wallClock) {
        this.reads = reads;
        this.batch = batch;
        this.writing = writing;
        this.queuedInMemory = queuedInMemory;
        this.clock = clock;
        this.wallClock = wallClock;
    }

    @Override
    public boolean isKept() {
        return true;
    }

    @Override
    public int queuedInMemory() {
        return queuedInMemory;
    }

    /** Not while a write of the shard failed: the store may not read either, and it is not written to. */
    @Override
    public boolean readable() {
        return writing.getAsBoolean();
    }

    @Override
    public List<Stored> readQueued(String clientId, long fromSeq, int count, LongPredicate inMemory) {
        var read = new ArrayList<Stored>(count);
        long now = clock.getAsLong();
        long wall = wallClock.getAsLong();
        reads.scan(Keyspace.QUEUED, StoreKeys.queued(clientId, fromSeq), StoreKeys.clientEnd(clientId), (key, value) -> {
            long seq = StoreKeys.rest(key).getLong();
            if (!inMemory.test(seq)) read.add(new Stored(seq, MessageRecords.read(value, now, wall)));
            return read.size() < count;
        });
        return read;
    }

    @Override
    public Optional<RecoveredSession> storedSession(String clientId, Function<String, Session> newSession) {
        if (!readable()) throw new StoreException("the store is failing: what was journaled is not written yet", null);
        var recovery = new SessionRecovery(reads, batch, clock.getAsLong(), wallClock.getAsLong());
        return recovery.recoverOne(clientId, newSession, this);
    }

    @Override
    public void message(String clientId, long seq, Message message) {
        if (message != lastMessage) {
            lastRecord = MessageRecords.encode(message, clock.getAsLong(), wallClock.getAsLong());
            lastMessage = message;
        }
        batch.put(Keyspace.QUEUED, StoreKeys.queued(clientId, seq), lastRecord);
    }

    @Override
    public void inFlight(String clientId, long seq, int packetId, boolean released) {
        var value = ByteBuffer.allocate(3).putShort((short) packetId).put((byte) (released ? 1 : 0)).array();
        batch.put(Keyspace.IN_FLIGHT, StoreKeys.outgoing(clientId, seq), value);
    }

    @Override
    public void removed(String clientId, long seq, boolean inFlightToo) {
        batch.delete(Keyspace.QUEUED, StoreKeys.queued(clientId, seq));
        if (inFlightToo) batch.delete(Keyspace.IN_FLIGHT, StoreKeys.outgoing(clientId, seq));
    }

    @Override
    public void removedFrom(String clientId, long fromSeq, long toSeq) {
        batch.deleteRange(Keyspace.QUEUED, StoreKeys.queued(clientId, fromSeq), StoreKeys.queued(clientId, toSeq));
    }

    @Override
    public void awaitingPubRel(String clientId, int packetId, boolean awaiting) {
        var key = StoreKeys.incoming(clientId, packetId);
        if (awaiting) {
            batch.put(Keyspace.IN_FLIGHT, key, EMPTY);
        } else {
            batch.delete(Keyspace.IN_FLIGHT, key);
        }
    }

    @Override
    public void session(String clientId, long expiryInterval, Map<String, SubscriptionEntry> subscriptions, long offlineSince) {
        long offlineWall = offlineSince == CONNECTED ? SessionRecords.CONNECTED : wallOf(offlineSince);
        batch.put(Keyspace.SESSIONS, StoreKeys.of(clientId), SessionRecords.encode(expiryInterval, offlineWall, subscriptions));
    }

    /** A will: its message stored as of the end of its connection, then when it is due (wall clock). */
    @Override
    public void will(String clientId, PendingWill will) {
        var key = StoreKeys.of(clientId);
        if (will == null) {
            batch.delete(Keyspace.WILLS, key);
            return;
        }
        var message = MessageRecords.encode(will.message(), will.endedAt(), wallOf(will.endedAt()));
        var value = ByteBuffer.allocate(Long.BYTES + message.length).putLong(wallOf(will.publishAt())).put(message).array();
        batch.put(Keyspace.WILLS, key, value);
    }

    @Override
    public void ended(String clientId) {
        var key = StoreKeys.of(clientId);
        batch.delete(Keyspace.SESSIONS, key).delete(Keyspace.WILLS, key);
        var start = StoreKeys.clientStart(clientId);
        var end = StoreKeys.clientEnd(clientId);
        batch.deleteRange(Keyspace.QUEUED, start, end).deleteRange(Keyspace.IN_FLIGHT, start, end);
    }

    private long wallOf(long nanos) {
        return wallClock.getAsLong() - (clock.getAsLong() - nanos) / 1_000_000;
    }
}
