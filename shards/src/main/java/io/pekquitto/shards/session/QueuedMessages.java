package io.pekquitto.shards.session;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.ArrayDeque;
import java.util.Collections;
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

    /** What waits in the journal alone. */
    private static final class Spilled {
        int count;
        long from;
        /** A spilled QoS 0 message before this sequence number is dropped when read back: its client went offline. */
        long qos0DropBefore;
    }

    /**
     * The queue of every session that has queued nothing yet: an idle client's session pays for none (docs/connections.md,
     * Parking). Never changed: {@link #add} and {@link #spill} make a queue of the session's own.
     */
    static final QueuedMessages NONE = new QueuedMessages();

    // Null until used: a broker holds many idle sessions (docs/connections.md, Parking).
    private ArrayDeque<Queued> inMemory;
    /** Payload bytes of every queued message, in memory and spilled. */
    private long bytes;
    /** Payload bytes of those in memory. */
    private long heapPayload;
    private Spilled spilled;

    /** Queued messages, in memory and spilled. */
    int size() {
        return inMemorySize() + spilled();
    }

    private int inMemorySize() {
        return inMemory == null ? 0 : inMemory.size();
    }

    /** Their payload bytes. */
    long bytes() {
        return bytes;
    }

    /** What the messages in memory hold in the heap: their payloads, and each its own objects ({@link MemoryBudget#MESSAGE_OVERHEAD}). */
    long heapBytes() {
        return heapPayload + (long) inMemorySize() * MemoryBudget.MESSAGE_OVERHEAD;
    }

    boolean isEmpty() {
        return size() == 0;
    }

    int spilled() {
        return spilled == null ? 0 : spilled.count;
    }

    /** Whether a new message goes to the journal alone: messages are spilled already, or memory holds {@code window} or more. */
    boolean mustSpill(int window) {
        return spilled() > 0 || inMemorySize() >= window;
    }

    /** Queues a message in memory; returns the queue that holds it: this, or a new one in place of {@link #NONE}. */
    QueuedMessages add(Message message, long seq) {
        if (this == NONE) return new QueuedMessages().add(message, seq);
        if (inMemory == null) inMemory = new ArrayDeque<>(2);
        inMemory.add(new Queued(message, seq));
        bytes += message.payload().length();
        heapPayload += message.payload().length();
        return this;
    }

    /** A message journaled under {@code seq} waits there alone; returns the queue that counts it, as {@link #add} does. */
    QueuedMessages spill(Message message, long seq) {
        if (this == NONE) return new QueuedMessages().spill(message, seq);
        if (spilled == null) spilled = new Spilled();
        spilled.from = spilled.count == 0 ? seq : Math.min(spilled.from, seq);
        spilled.count++;
        bytes += message.payload().length();
        return this;
    }

    /** The next message in memory, or null; see {@link #needsReading}. */
    Queued peek() {
        return inMemory == null ? null : inMemory.peek();
    }

    Queued poll() {
        var queued = inMemory == null ? null : inMemory.poll();
        if (queued != null) {
            bytes -= queued.message().payload().length();
            heapPayload -= queued.message().payload().length();
        }
        return queued;
    }

    /** Whether spilled messages should be read back: memory holds half a window or less. */
    boolean needsReading(int window) {
        return spilled() > 0 && inMemorySize() <= window / 2;
    }

    /** How many spilled messages fit in memory under {@code window}. */
    int roomIn(int window) {
        return window - inMemorySize();
    }

    /**
     * How many spilled messages to read back under {@code window} with {@code room} bytes of the heap free
     * (the client's share and its shard's budget), at their average size; one if {@code holdsNothing}, so
     * that a client that reads is never left waiting on a budget others fill.
     */
    int toReadBack(int window, long room, boolean holdsNothing) {
        long average = (spilled() == 0 ? 0 : (bytes - heapPayload) / spilled()) + MemoryBudget.MESSAGE_OVERHEAD;
        int affordable = (int) Math.min(roomIn(window), room / average);
        return affordable == 0 && holdsNothing ? 1 : affordable;
    }

    /**
     * Reads up to {@code atMost} spilled messages back into memory; a QoS 0 message to drop goes to
     * {@code dropped} instead. {@code held}: the sequence numbers the session holds outside the queue,
     * which the journal also has; the queue's own are added to it.
     */
    void read(SessionJournal journal, String clientId, int atMost, Set<Long> held, Consumer<Queued> dropped) {
        int count = Math.min(spilled(), atMost);
        if (count <= 0) return;
        for (var queued : inMemory()) held.add(queued.seq());
        var read = journal.readQueued(clientId, spilled.from, count, held::contains);
        for (var stored : read) {
            spilled.count--;
            spilled.from = stored.seq() + 1;
            var message = stored.message();
            if (message.qos() == QoS.AT_MOST_ONCE && stored.seq() < spilled.qos0DropBefore) {
                bytes -= message.payload().length();
                dropped.accept(new Queued(message, stored.seq()));
            } else {
                if (inMemory == null) inMemory = new ArrayDeque<>(count);
                inMemory.add(new Queued(message, stored.seq()));
                heapPayload += message.payload().length();
            }
        }
        if (read.size() < count) {
            // The journal holds fewer than were counted (it was damaged): what it holds is what is left.
            spilled.count = 0;
            bytes = heapPayload;
        }
    }

    /** Removes the messages in memory that {@code test} accepts, each given to {@code removed}. */
    void removeIf(Predicate<Queued> test, Consumer<Queued> removed) {
        if (inMemory == null) return;
        for (Iterator<Queued> it = inMemory.iterator(); it.hasNext(); ) {
            var queued = it.next();
            if (test.test(queued)) {
                it.remove();
                bytes -= queued.message().payload().length();
                heapPayload -= queued.message().payload().length();
                removed.accept(queued);
            }
        }
    }

    /**
     * Frees the heap of the queue: every message in memory that the journal holds waits there alone from
     * now on (they all come before the spilled ones, so the order holds); one it does not hold (QoS 0 to
     * a connected client) goes to {@code dropped}.
     */
    void spillAll(Consumer<Queued> dropped) {
        if (inMemory == null || inMemory.isEmpty()) return;
        for (var queued : inMemory) {
            if (queued.seq() == 0) {
                bytes -= queued.message().payload().length();
                dropped.accept(queued);
            } else {
                if (spilled == null) spilled = new Spilled();
                spilled.from = spilled.count == 0 ? queued.seq() : Math.min(spilled.from, queued.seq());
                spilled.count++;
            }
        }
        inMemory.clear();
        heapPayload = 0;
    }

    /** The spilled QoS 0 messages journaled before {@code seq} are dropped as they are read back. */
    void dropSpilledQos0Before(long seq) {
        if (spilled() > 0) spilled.qos0DropBefore = seq;
    }

    /** The sequence number from which every spilled message is (when any is); for emptying. */
    long spillFrom() {
        return spilled == null ? 0 : spilled.from;
    }

    Iterable<Queued> inMemory() {
        return inMemory == null ? Collections.emptyList() : inMemory;
    }
}
