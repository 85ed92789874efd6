package io.pekquitto.shards.mesh;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The data plane of one shard towards its peers: forwarded publishes are batched per destination and
 * sent with a credit window of {@link #WINDOW} unacknowledged batches per destination
 * (docs/shards-and-mesh.md, The data plane). While a destination is busy, items wait here; past
 * {@link #HIGH_WATER} items for one destination, QoS 0 is dropped and counted and the shard stops its
 * publishers reading (QoS 1/2 is never dropped), so memory stays bounded under overload. Plain rules;
 * the shard sends.
 */
public final class DataPlane {
    /** Unacknowledged batches per destination. */
    static final int WINDOW = 4;
    /** Items waiting for one destination above which publishers are paused and QoS 0 is dropped. */
    static final int HIGH_WATER = 8192;
    /** Below this many waiting items for every destination, paused publishers resume. */
    static final int LOW_WATER = HIGH_WATER / 2;

    private final List<List<Forwarded>> pending = new ArrayList<>();
    private int[] inFlight;
    /** Batches sent to, and acknowledged by, each destination so far: watermarks for durable acknowledgements. */
    private long[] sent;
    private long[] acknowledged;
    /** Per destination, the bytes a batch may carry (one item at least): a shard on another node reads a frame. */
    private long[] batchBytes;
    private long droppedQos0;

    /** A batch for one destination. */
    public interface Sender {
        void send(int destination, List<Forwarded> batch);
    }

    public DataPlane(int shards) {
        inFlight = new int[0];
        sent = new long[0];
        acknowledged = new long[0];
        batchBytes = new long[0];
        grow(shards);
    }

    /** Room for destinations up to {@code shards - 1} (the mesh grows as nodes join); what is kept stays. */
    public void grow(int shards) {
        int before = inFlight.length;
        if (shards <= before) return;
        for (int i = before; i < shards; i++) pending.add(new ArrayList<>());
        inFlight = Arrays.copyOf(inFlight, shards);
        sent = Arrays.copyOf(sent, shards);
        acknowledged = Arrays.copyOf(acknowledged, shards);
        batchBytes = Arrays.copyOf(batchBytes, shards);
        Arrays.fill(batchBytes, before, shards, Long.MAX_VALUE);
    }

    /** Batches to {@code destination} carry at most {@code bytes} of messages each, or one message. */
    public void limitBatches(int destination, long bytes) {
        batchBytes[destination] = bytes;
    }

    public int destinations() { return inFlight.length; }

    /**
     * Queues an item for a destination. Returns true if this destination had nothing waiting (the caller
     * schedules a flush). A QoS 0 item over the high-water mark is dropped and counted.
     */
    public boolean add(int destination, Forwarded item) {
        var waiting = pending.get(destination);
        // A retained message caught up is never dropped: it is no publish, and no one would send it again.
        var message = Forwarded.messageOf(item);
        if (waiting.size() >= HIGH_WATER && message != null && message.qos() == QoS.AT_MOST_ONCE && !(item instanceof Forwarded.Retained)) {
            droppedQos0++;
            return false;
        }
        waiting.add(item);
        return waiting.size() == 1;
    }

    /** Sends what waits, one batch per destination that has credit, except to those {@code held} names (they keep it). */
    public void flush(IntPredicate held, Sender sender) {
        for (int destination = 0; destination < inFlight.length; destination++) {
            while (!pending.get(destination).isEmpty() && inFlight[destination] < WINDOW && !held.test(destination)) {
                inFlight[destination]++;
                sent[destination]++;
                sender.send(destination, nextBatch(destination));
            }
        }
    }

    private List<Forwarded> nextBatch(int destination) {
        var waiting = pending.get(destination);
        if (batchBytes[destination] == Long.MAX_VALUE) {  // a shard of this node: everything waiting, unweighed
            pending.set(destination, new ArrayList<>());
            return waiting;
        }
        int count = 0;
        long bytes = 0;
        while (count < waiting.size() && (count == 0 || bytes + size(waiting.get(count)) <= batchBytes[destination])) {
            bytes += size(waiting.get(count++));
        }
        if (count == waiting.size()) {
            pending.set(destination, new ArrayList<>());
            return waiting;
        }
        var batch = new ArrayList<>(waiting.subList(0, count));
        waiting.subList(0, count).clear();
        return batch;
    }

    /** What an item weighs in a batch: its payload, topic and a margin for the rest. */
    private static long size(Forwarded item) {
        var message = Forwarded.messageOf(item);
        return message == null ? 256L : message.payload().length() + message.topic().length() + 256L;
    }

    /**
     * A destination is gone for good (its node left the cluster): what waited for it is dropped, and
     * nothing waits for the batches it had. Returns how many items were dropped.
     */
    public int drop(int destination) {
        int dropped = pending.get(destination).size();
        pending.set(destination, new ArrayList<>());
        reset(destination);
        return dropped;
    }

    /** A destination processed a batch: one credit back. */
    public void acknowledged(int destination) {
        if (inFlight[destination] > 0) inFlight[destination]--;
        if (acknowledged[destination] < sent[destination]) acknowledged[destination]++;
    }

    /**
     * A destination restarted: its credits start afresh (batches in its mailbox still get acknowledged),
     * and nothing waits for the batches it had: what they held is gone with its state.
     */
    public void reset(int destination) {
        inFlight[destination] = 0;
        acknowledged[destination] = sent[destination];
    }

    /**
     * Per destination, how many batches will have been sent once what waits now is sent: the batch
     * that will hold an item queued so far is at most this one.
     */
    public long[] batchesHoldingQueued() {
        var upTo = sent.clone();
        for (int destination = 0; destination < upTo.length; destination++) {
            if (!pending.get(destination).isEmpty()) upTo[destination]++;
        }
        return upTo;
    }

    /** Per destination, how many batches it has acknowledged. */
    public long[] acknowledgedBatches() {
        return acknowledged;
    }

    /** Whether publishers must stop reading: some destination is above the high-water mark. */
    public boolean isOverloaded() {
        for (var waiting : pending) if (waiting.size() >= HIGH_WATER) return true;
        return false;
    }

    /** Whether paused publishers may read again. */
    public boolean isBelowLowWater() {
        for (var waiting : pending) if (waiting.size() >= LOW_WATER) return false;
        return true;
    }

    public long droppedQos0() { return droppedQos0; }

    /** Batches sent to every destination so far. */
    public long batchesSent() {
        long total = 0;
        for (long batches : sent) total += batches;
        return total;
    }
}
