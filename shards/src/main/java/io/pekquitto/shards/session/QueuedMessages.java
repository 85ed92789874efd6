package io.pekquitto.shards.session;

import io.pekquitto.protocol.QoS;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The queue of one session: messages not yet sent, oldest first, and their payload bytes. A session
 * kept in a store holds at most {@link SessionJournal#queuedInMemory()} of them in the heap; the ones
 * past those are spilled: in the journal alone, counted here, and read back in sequence order as the
 * queue drains. Every spilled message comes after every one in memory, and has a sequence number at
 * or after {@code spillFrom}; the journal's other messages from there on are held by the session
 * elsewhere (in flight, on their way to the connection) and are passed over when reading back.
 */
final class QueuedMessages {
    /** A message waiting, with its sequence number in the journal (0: not journaled). */
    record Queued(Message message, long seq) {}

    // Small until used: a broker holds many idle sessions (DESIGN.md, Connections and parking).
    private final ArrayDeque<Queued> inMemory = new ArrayDeque<>(1);
    private long bytes;
    private int spilled;
    private long spillFrom;
    /** A spilled QoS 0 message before this sequence number is dropped when read back: its client went offline. */
    private long qos0DropBefore;

    /** Queued messages, in memory and spilled. */
    int size() {
        return inMemory.size() + spilled;
    }

    /** Their payload bytes. */
    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return size() == 0;
    }

    int spilled() {
        return spilled;
    }

    /** Whether a new message goes to the journal alone: messages are spilled already, or memory holds {@code window} or more. */
    boolean mustSpill(int window) {
        return spilled > 0 || inMemory.size() >= window;
    }

    void add(Message message, long seq) {
        inMemory.add(new Queued(message, seq));
        bytes += message.payload().length();
    }

    /** A message journaled under {@code seq} waits there alone. */
    void spill(Message message, long seq) {
        spillFrom = spilled == 0 ? seq : Math.min(spillFrom, seq);
        spilled++;
        bytes += message.payload().length();
    }

    /** The next message in memory, or null; see {@link #needsReading}. */
    Queued peek() {
        return inMemory.peek();
    }

    Queued poll() {
        var queued = inMemory.poll();
        if (queued != null) bytes -= queued.message().payload().length();
        return queued;
    }

    /** Whether spilled messages should be read back: memory holds half a window or less. */
    boolean needsReading(int window) {
        return spilled > 0 && inMemory.size() <= window / 2;
    }

    /** How many spilled messages fit in memory under {@code window}. */
    int roomIn(int window) {
        return window - inMemory.size();
    }

    /**
     * Reads up to {@code atMost} spilled messages back into memory; a QoS 0 message to drop goes to
     * {@code dropped} instead. {@code heldElsewhere}: the sequence numbers the session holds outside
     * the queue, which the journal also has.
     */
    void read(SessionJournal journal, String clientId, int atMost, Set<Long> heldElsewhere, Consumer<Queued> dropped) {
        int count = Math.min(spilled, atMost);
        if (count <= 0) return;
        var held = new HashSet<>(heldElsewhere);
        for (var queued : inMemory) held.add(queued.seq());
        var read = journal.readQueued(clientId, spillFrom, count, held::contains);
        for (var stored : read) {
            spilled--;
            spillFrom = stored.seq() + 1;
            var queued = new Queued(stored.message(), stored.seq());
            if (stored.message().qos() == QoS.AT_MOST_ONCE && stored.seq() < qos0DropBefore) {
                bytes -= stored.message().payload().length();
                dropped.accept(queued);
            } else {
                inMemory.add(queued);
            }
        }
        if (read.size() < count) {
            // The journal holds fewer than were counted (it was damaged): what it holds is what is left.
            spilled = 0;
            bytes = 0;
            for (var queued : inMemory) bytes += queued.message().payload().length();
        }
    }

    /** Removes the messages in memory that {@code test} accepts, each given to {@code removed}. */
    void removeIf(Predicate<Queued> test, Consumer<Queued> removed) {
        for (Iterator<Queued> it = inMemory.iterator(); it.hasNext(); ) {
            var queued = it.next();
            if (test.test(queued)) {
                it.remove();
                bytes -= queued.message().payload().length();
                removed.accept(queued);
            }
        }
    }

    /** The spilled QoS 0 messages journaled before {@code seq} are dropped as they are read back. */
    void dropSpilledQos0Before(long seq) {
        if (spilled > 0) qos0DropBefore = seq;
    }

    /** The sequence number from which every spilled message is, and the in-memory messages; for emptying. */
    long spillFrom() {
        return spillFrom;
    }

    Iterable<Queued> inMemory() {
        return inMemory;
    }
}
