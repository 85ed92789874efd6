package io.pekquitto.shards.store;

import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.RecoveredSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.session.SessionJournal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads back the persistent sessions whose home is one shard: SESSIONS, then their messages in
 * sequence order (QUEUED), the packet identifiers of QoS 2 exchanges (IN_FLIGHT), their wills, and the
 * messages that were on their way to them between shards (RELAYED).
 * What expired while the broker was down is not recovered, and its entries are deleted. Home is
 * reckoned with the shard count of this run, so a change of {@code shards} re-homes every session.
 */
final class SessionRecovery {
    private final Store store;
    private final StoreBatch cleanup;
    private final long now;
    private final long wall;

    /** A session being rebuilt, and its messages in flight by sequence number. */
    private record Rebuilt(Session session, SessionRecords.Stored stored, Map<Long, int[]> outgoing) {}

    SessionRecovery(Store store, StoreBatch cleanup, long now, long wall) {
        this.store = store;
        this.cleanup = cleanup;
        this.now = now;
        this.wall = wall;
    }

    List<RecoveredSession> recover(int shard, int shards, Function<String, Session> newSession, SessionJournal journal) {
        var rebuilt = new LinkedHashMap<String, Rebuilt>();
        store.forEach(Keyspace.SESSIONS, (key, value) -> {
            var clientId = StoreKeys.text(key);
            if (SessionDirectory.homeOf(clientId, shards) != shard) return;
            rebuilt.put(clientId, rebuilt(clientId, value, newSession, journal));
        });
        readMessages(rebuilt, new byte[0], null);
        store.forEach(Keyspace.RELAYED, (key, value) -> {
            var buffer = ByteBuffer.wrap(value);
            var id = new byte[buffer.getShort() & 0xFFFF];
            buffer.get(id);
            var clientId = StoreKeys.text(id);
            if (SessionDirectory.homeOf(clientId, shards) != shard) return;
            var owner = rebuilt.get(clientId);
            // On its way to a shared member when the broker stopped: its session takes it on, or it went with it.
            if (owner != null) {
                var record = Arrays.copyOfRange(value, buffer.position(), value.length);
                MessageRecords.decode(record, now, wall).ifPresent(message -> owner.session().enqueue(message, true));
            }
            cleanup.delete(Keyspace.RELAYED, key);
        });
        var recovered = new ArrayList<RecoveredSession>(rebuilt.size());
        rebuilt.forEach((clientId, session) -> recovered.add(rebuild(clientId, session)));
        return recovered;
    }

    /**
     * The one persistent session of {@code clientId} the store holds, if any: read back when its client
     * comes back to a broker that lost it (a shard restarted after a failure forgets what it held).
     */
    Optional<RecoveredSession> recoverOne(String clientId, Function<String, Session> newSession, SessionJournal journal) {
        return store.get(Keyspace.SESSIONS, StoreKeys.of(clientId)).map(value -> {
            var rebuilt = Map.of(clientId, rebuilt(clientId, value, newSession, journal));
            readMessages(rebuilt, StoreKeys.clientStart(clientId), StoreKeys.clientEnd(clientId));
            return rebuild(clientId, rebuilt.get(clientId));
        });
    }

    private static Rebuilt rebuilt(String clientId, byte[] value, Function<String, Session> newSession, SessionJournal journal) {
        var session = newSession.apply(clientId);
        session.journalTo(journal);
        return new Rebuilt(session, SessionRecords.decode(value), new HashMap<>());
    }

    /** The sessions' QoS 2 exchanges and messages, from the keys {@code from} (inclusive) to {@code to} (exclusive, null: the end). */
    private void readMessages(Map<String, Rebuilt> rebuilt, byte[] from, byte[] to) {
        store.scan(Keyspace.IN_FLIGHT, from, to, (key, value) -> {
            var owner = rebuilt.get(StoreKeys.clientOf(key));
            if (owner == null) return true;
            var rest = StoreKeys.rest(key);
            if (rest.get() == StoreKeys.OUTGOING) {
                var state = ByteBuffer.wrap(value);
                owner.outgoing().put(rest.getLong(), new int[] {state.getShort() & 0xFFFF, state.get()});
            } else {
                owner.session().restoreAwaitingPubRel(rest.getShort() & 0xFFFF);
            }
            return true;
        });
        store.scan(Keyspace.QUEUED, from, to, (key, value) -> {
            var owner = rebuilt.get(StoreKeys.clientOf(key));
            if (owner == null) return true;
            long seq = StoreKeys.rest(key).getLong();
            var message = MessageRecords.decode(value, now, wall);
            var flight = owner.outgoing().get(seq);
            if (message.isPresent()) {
                owner.session().restore(seq, message.get(), flight == null ? 0 : flight[0], flight != null && flight[1] == 1);
            } else if (flight != null && flight[1] == 1) {
                // Expired, but its PUBREC came: PUBREL must still go out; the message itself is not sent again.
                MessageRecords.decode(value, now, MessageRecords.storedAt(value))
                        .ifPresent(kept -> owner.session().restore(seq, kept, flight[0], true));
            } else {
                cleanup.delete(Keyspace.QUEUED, key);  // [MQTT-3.3.2-5] expired while the broker was down
            }
            return true;
        });
    }

    private RecoveredSession rebuild(String clientId, Rebuilt rebuilt) {
        var stored = rebuilt.stored();
        // Connected when the broker stopped: offline from now on.
        long offlineSince = stored.offlineSince() == SessionRecords.CONNECTED ? now : nanosOf(stored.offlineSince());
        return new RecoveredSession(clientId, rebuilt.session(), stored.subscriptions(), stored.expiryInterval(),
                offlineSince, will(clientId));
    }

    /** The will, its message received again as of the end of its connection: its expiry starts when it is published. */
    private Optional<PendingWill> will(String clientId) {
        return store.get(Keyspace.WILLS, StoreKeys.of(clientId)).map(value -> {
            var buffer = ByteBuffer.wrap(value);
            long publishAt = nanosOf(buffer.getLong());
            var record = new byte[buffer.remaining()];
            buffer.get(record);
            long storedAt = MessageRecords.storedAt(record);
            long endedAt = nanosOf(storedAt);
            return new PendingWill(MessageRecords.decode(record, endedAt, storedAt).orElseThrow(), endedAt, publishAt);
        });
    }

    private long nanosOf(long wallMillis) {
        return now - (wall - wallMillis) * 1_000_000L;
    }
}
