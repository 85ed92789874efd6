package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionJournal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code durability = fsync}, a disk that takes seconds to sync never holds the shard's thread: a
 * session's queued messages that wait in the store alone are read back through the writes the writer
 * has not written yet, in order, none lost or doubled, while the writer still waits on the disk.
 */
class SlowDiskReadBackTest {
    private static final long SECOND = 1_000_000_000L;
    private static final int WINDOW = 4;
    private static final Duration NOT_A_SECOND_WAITED = Duration.ofSeconds(10);  // the disk holds its write for 30 s

    private final CountDownLatch diskDone = new CountDownLatch(1);
    private final CountDownLatch writing = new CountDownLatch(1);
    private final MemoryStore disk = new MemoryStore();
    /** Every write waits until the disk is done: a sync that takes its time. */
    private final Store slowDisk = new InterceptedStore(disk, batch -> {
        writing.countDown();
        try {
            diskDone.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    });
    private final ShardPersistence persistence = new ShardPersistence(Optional.of(slowDisk), StoreHealth.none(), () -> 7 * SECOND,
            () -> 1_800_000_000_000L, () -> {}, WINDOW, true, "slow-writer", written -> {}, failure -> {});

    @AfterEach
    void close() {
        diskDone.countDown();
        persistence.close();
    }

    private Session session() {
        var session = new Session("c", 1000, true);
        session.journalTo(persistence.journal());
        persistence.journal().session("c", 3600, Map.of(), SessionJournal.CONNECTED);
        return session;
    }

    private static Message message(int n, boolean shared) {
        var message = Message.received("t/" + n, Binary.utf8("m" + n), QoS.AT_LEAST_ONCE, false, Properties.NONE, 7 * SECOND);
        return shared ? message.viaShared("$share/g/t/#") : message;
    }

    @Test
    void spilledMessagesAreReadBackWhileTheDiskHoldsTheirWrite() throws Exception {
        var session = session();
        persistence.flush();
        assertTrue(writing.await(10, TimeUnit.SECONDS), "the writer waits on the disk");
        for (int n = 1; n <= 20; n++) session.enqueue(message(n, false), true);
        persistence.flush();  // the next turn's writes wait behind the one on the disk
        assertTrue(session.queuedInHeap() <= WINDOW, "spilled: " + session.queuedInHeap());

        var delivered = assertTimeoutPreemptively(NOT_A_SECOND_WAITED, () -> drainAll(session));
        assertEquals(IntStream.rangeClosed(1, 20).mapToObj(n -> "m" + n).toList(), delivered);
        assertEquals(0, disk.get(Keyspace.SESSIONS, StoreKeys.of("c")).map(value -> 1).orElse(0), "nothing written yet");

        diskDone.countDown();
        assertTrue(persistence.flushNow());
        int[] left = {0};
        disk.forEach(Keyspace.QUEUED, (key, value) -> left[0]++);
        assertEquals(0, left[0], "every message acknowledged: none left in the store");
    }

    @Test
    void anEndingSessionGivesAwayItsSpilledSharedMessagesWhileTheDiskHoldsTheirWrite() throws Exception {
        var session = session();
        persistence.flush();
        assertTrue(writing.await(10, TimeUnit.SECONDS));
        for (int n = 1; n <= 12; n++) session.enqueue(message(n, n % 3 == 0), true);

        var taken = assertTimeoutPreemptively(NOT_A_SECOND_WAITED, () -> session.takeSharedMessages());
        assertEquals(List.of("m3", "m6", "m9", "m12"), taken.stream().map(m -> m.payload().asUtf8()).toList());
    }

    private static List<String> drainAll(Session session) {
        var delivered = new ArrayList<String>();
        var publishes = new ArrayList<Publish>();
        while (session.queuedCount() > 0) {
            int before = publishes.size();
            session.drain(2, 8 * SECOND, publishes::add);
            if (publishes.size() == before) throw new AssertionError("nothing drained with " + session.queuedCount() + " queued");
            for (var publish : publishes.subList(before, publishes.size())) {
                delivered.add(publish.payload().asUtf8());
                session.acknowledge(publish.packetId());
            }
        }
        return delivered;
    }
}
