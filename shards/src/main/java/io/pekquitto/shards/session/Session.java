package io.pekquitto.shards.session;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The delivery state of one MQTT session (4.1): outgoing QoS 1/2 messages queued and in flight, and the
 * packet identifiers of incoming QoS 2 messages awaiting PUBREL. It outlives connections when the
 * session does: the shard keeps it while the client is offline and hands it to the client's next
 * connection. Plain rules, no I/O: the caller sends what this returns.
 *
 * <p>Subscriptions are not here: they live in the shard's index, which routes to the session.
 *
 * <p>A persistent session writes its changes to a {@link SessionJournal}: each QoS 1/2 message (and each
 * QoS 0 message queued while its client is offline) under a sequence number of the session's, kept
 * until it is acknowledged or dropped. A message the shard routes to the attached connection is
 * journaled at once ({@link #routed}), and the connection's window takes it by identity when the
 * delivery reaches it, so the publisher's acknowledgement never waits for the subscriber's connection.
 * Its queue holds only the journal's {@link SessionJournal#queuedInMemory()} messages in the heap; the
 * rest wait in the journal alone ({@link QueuedMessages}).
 *
 * <p>What the session holds in the heap (its queue's messages in memory, its messages in flight, and
 * the bytes its connection reports waiting for the socket) counts against its shard's
 * {@link MemoryBudget}: a message the client's share or the shard's budget has no room for is spilled
 * to the journal when the session has one (QoS 1/2), else dropped and counted.
 */
public final class Session {
    /** The Session Expiry Interval that means "never" (3.1.2.11.2). */
    public static final long NEVER_EXPIRES = 0xFFFF_FFFFL;

    private final String clientId;
    /** Its queue's limits, one for all of a shard's sessions (16 bytes less per client); SessionExport reads them. */
    final PortableSession.Limits limits;

    /** Messages not yet sent, oldest first; shared and empty until the first ({@link QueuedMessages#NONE}). */
    QueuedMessages queue = QueuedMessages.NONE;
    /** Sent QoS 1/2 messages awaiting PUBACK / PUBREC / PUBCOMP; shared and empty until the first. */
    InflightMessages inflight = InflightMessages.NONE;
    /** Incoming QoS 2 packet identifiers delivered onwards and awaiting PUBREL (4.3.3, method B); shared and empty until the first. */
    Set<Integer> awaitingPubRel = Collections.emptySet();
    long droppedMessages;
    /** Null unless the session is persistent and a store keeps it: most sessions of a busy broker are not. */
    private KeptJournal kept;
    /** The budget of the shard that holds the session; {@link MemoryBudget#NONE} while it travels between shards. */
    private MemoryBudget memory;
    /** Bytes waiting for the client's socket, as its connection last reported them. */
    private long backlog;
    /** What the memory budget was last told the session holds. */
    private long held;

    public Session(String clientId, int maxQueuedMessages, boolean queueQos0Messages) {
        this(clientId, new PortableSession.Limits(maxQueuedMessages, 0, queueQos0Messages), MemoryBudget.NONE);
    }

    public Session(String clientId, int maxQueuedMessages, long maxQueuedBytes, boolean queueQos0Messages,
                   MemoryBudget memory) {
        this(clientId, new PortableSession.Limits(maxQueuedMessages, maxQueuedBytes, queueQos0Messages), memory);
    }

    /**
     * @param limits what its queue may hold: messages, payload bytes (in the heap and the journal, 0 for no
     *               limit: {@code max-queued-bytes} set to a size) and whether QoS 0 messages are queued offline
     * @param memory the budget of the shard that holds the session
     */
    public Session(String clientId, PortableSession.Limits limits, MemoryBudget memory) {
        this.clientId = clientId;
        this.limits = limits;
        this.memory = memory;
    }

    public String clientId() { return clientId; }

    /** Where the session's changes are written from now on: the holding shard's journal, or NONE. */
    public void journalTo(SessionJournal newJournal) {
        if (!newJournal.isKept()) {
            kept = null;
        } else if (kept == null) {
            kept = new KeptJournal(newJournal);
        } else {
            kept.journal = newJournal;
        }
    }

    /** The journal the session writes to. */
    public SessionJournal journal() {
        return kept == null ? SessionJournal.NONE : kept.journal;
    }

    // ---- the heap it holds

    /** What the session holds counts against {@code budget} from now on: its shard's, or NONE on its way to another. */
    public void memoryTo(MemoryBudget budget) {
        if (budget == memory) return;
        memory.held(held, 0);
        memory = budget;
        memory.held(0, held);
    }

    /** The session ends: what it holds no longer counts. */
    public void leaveMemory() {
        memoryTo(MemoryBudget.NONE);
    }

    /** Bytes waiting for the client's socket now, from its connection (0 once the connection has ended). */
    public void backlog(long bytes) {
        backlog = bytes;
        account();
    }

    /** The bytes the client holds in the heap: its queue in memory, its messages in flight, what waits for its socket. */
    public long held() {
        return queue.heapBytes() + inflight.bytes() + backlog;
    }

    /** Tells the budget what the session holds now. */
    private void account() {
        long now = held();
        memory.held(held, now);
        held = now;
    }

    /** Whether the client's share and the shard's budget have room for {@code bytes} more (a QoS 0 message). */
    public boolean mayTake(long bytes) {
        return memory.mayTake(held(), bytes);
    }

    /** Frees the heap of the queue: with a journal, its messages wait there alone; without one, they stay. */
    public void spillQueue() {
        if (kept == null) return;
        queue.spillAll(dropped -> {
            droppedMessages++;
            memory.dropped(1);
        });
        account();
    }

    // ---- the journal

    /**
     * The shard routed a QoS 1/2 message to this session's connection: journaled now, in the shard's
     * turn, so that the publisher's acknowledgement covers it; the window takes it when it arrives.
     */
    public void routed(Message message) {
        if (kept != null && message.qos() != QoS.AT_MOST_ONCE) kept.route(clientId, message);
    }

    /** The sequence number of a message: the one it was routed under, or a new one journaled now; 0 if none is kept. */
    private long seqOf(Message message) {
        if (kept == null || message.qos() == QoS.AT_MOST_ONCE) return 0;
        long routedUnder = kept.take(message);
        return routedUnder != 0 ? routedUnder : kept.journal(clientId, message);
    }

    /** The sequence number this very delivery was routed under (it is taken), or 0. */
    private long takeRouted(Message message) {
        return kept == null ? 0 : kept.take(message);
    }

    /** A delivery the connection will not send (it expired on the way): out of the journal. */
    public void dropped(Message message) {
        forget(takeRouted(message), false);
    }

    private void forget(long seq, boolean inFlightToo) {
        if (seq != 0 && kept != null) kept.journal.removed(clientId, seq, inFlightToo);
    }

    // ---- the queue

    /** {@link #offer}, within the limits: whether the message was queued. */
    public boolean enqueue(Message message, boolean offline) {
        return offer(message, offline, false) == Queueing.QUEUED;
    }

    /**
     * Queues a message for a client that is offline or whose in-flight window is full; with
     * {@code overLimit}, past {@code max-queued-messages} too, which the connection asks for while its shard
     * slows the publishers down for it (what is on its way is then bounded by their windows, and kept).
     * QoS 0 for an offline client is dropped unless {@code queue-qos0-messages}. A message the client's
     * share or the shard's budget has no room for waits in the journal alone (QoS 1/2 of a session a store
     * keeps, and QoS 0 kept for an offline one), or is dropped and counted by the budget.
     */
    public Queueing offer(Message message, boolean offline, boolean overLimit) {
        boolean qos0 = message.qos() == QoS.AT_MOST_ONCE;
        if (offline && qos0 && !limits.queueQos0Messages()) return Queueing.FULL;
        int size = message.payload().length();
        boolean full = queue.size() >= limits.maxQueuedMessages()
                || (limits.maxQueuedBytes() > 0 && queue.bytes() + size > limits.maxQueuedBytes());
        if (full && !overLimit) {
            droppedMessages++;
            forget(takeRouted(message), false);  // journaled only if it was routed to the connection
            return Queueing.FULL;
        }
        boolean inHeap = memory.mayTake(held(), size + MemoryBudget.MESSAGE_OVERHEAD);
        if (!inHeap && (kept == null || (qos0 && !offline))) {
            droppedMessages++;
            memory.dropped(1);
            forget(takeRouted(message), false);
            return Queueing.OVER_BUDGET;
        }
        // Only an offline client's queue goes to the store: an attached one drains soon, and a read back
        // costs a write first (a wait for the writer, with fsync). Behind spilled messages, every one
        // spills; and so does one the heap has no room for.
        boolean spill = kept != null && (!inHeap || (offline ? queue.mustSpill(kept.window()) : queue.spilled() > 0));
        // QoS 0 is journaled for a client offline (it is kept for it) or past the window (the queue's order).
        long seq = qos0 ? (kept != null && (offline || spill) ? kept.journal(clientId, message) : 0) : seqOf(message);
        if (spill) {
            queue = queue.spill(message, seq);
        } else {
            queue = queue.add(message, seq);
            account();
        }
        return Queueing.QUEUED;
    }

    /** {@link #drain(int, long, Consumer, LongConsumer)}, not telling how long each message waited. */
    public void drain(int receiveMaximum, long now, Consumer<Publish> send) {
        drain(receiveMaximum, now, send, waited -> { });
    }

    /**
     * Moves queued messages into the in-flight window while it has room under the client's Receive
     * Maximum ([MQTT-4.9.0-2]) and hands each PUBLISH to {@code send} (QoS 0 takes no slot), telling
     * {@code waited} how long each waited since it was received. A message goes out only while what waits
     * for the client's socket leaves room for its copy in the client's share and the shard's budget, or
     * nothing waits; spilled messages are read back as far as the share and the budget have room.
     */
    public void drain(int receiveMaximum, long now, Consumer<Publish> send, LongConsumer waited) {
        long waiting = backlog;  // for the socket: what the connection reported, and what this drain sends
        try {
            while (true) {
                if (kept != null && queue.needsReading(kept.window()) && kept.journal.readable()) {
                    long holds = held();  // one at least for a client that holds nothing: it reads, so it gets the next
                    readSpilled(queue.toReadBack(kept.window(), memory.roomFor(holds), MemoryBudget.holdsNoMessage(holds)));
                }
                var next = queue.peek();
                if (next == null) return;
                var message = next.message();
                if (message.isExpired(now)) {
                    queue.poll();  // [MQTT-3.3.2-5] expired before onward delivery started
                    forget(next.seq(), false);
                    continue;
                }
                int size = message.payload().length();
                if (!MemoryBudget.holdsNoMessage(waiting) && !memory.mayTake(waiting, size)) return;
                boolean qos0 = message.qos() == QoS.AT_MOST_ONCE;
                if (!qos0 && inflight.size() >= receiveMaximum) return;
                queue.poll();
                waiting += size;
                waited.accept(now - message.receivedAt());
                if (qos0) {
                    forget(next.seq(), false);
                    send.accept(message.toPublish(0, false, now));
                } else {
                    send.accept(startFlight(message, next.seq(), now));
                }
            }
        } finally {
            account();
        }
    }

    /** Up to {@code atMost} spilled messages back from the journal. */
    void readSpilled(int atMost) {
        if (atMost <= 0) return;
        var heldElsewhere = new HashSet<Long>();
        for (var outgoing : inflight.all()) heldElsewhere.add(outgoing.seq());
        kept.addRouted(heldElsewhere);
        queue.read(kept.journal, clientId, atMost, heldElsewhere, dropped -> forget(dropped.seq(), false));
    }

    // ---- in flight

    /** Whether a new QoS 1/2 message may go straight out: nothing queued, room in flight, in its share and the budget. */
    public boolean canSendNow(int receiveMaximum, Message message) {
        return queue.isEmpty() && inflight.size() < receiveMaximum
                && memory.mayTake(held(), message.payload().length() + MemoryBudget.MESSAGE_OVERHEAD);
    }

    /** Puts a QoS 1/2 message in flight and returns its PUBLISH. */
    public Publish startFlight(Message message, long now) {
        var publish = startFlight(message, seqOf(message), now);
        account();
        return publish;
    }

    private Publish startFlight(Message message, long seq, long now) {
        int packetId = (inflight = inflight.orNew()).start(message, seq);
        // Only QoS 2 needs its packet identifier back after a crash: the client may hold it awaiting PUBREL.
        if (seq != 0 && kept != null && message.qos() == QoS.EXACTLY_ONCE) kept.journal.inFlight(clientId, seq, packetId, false);
        return message.toPublish(packetId, false, now);
    }

    /**
     * What to resend when the session resumes on a new connection ([MQTT-4.4.0-1]): every unacknowledged
     * PUBLISH with DUP set, and PUBREL for those already past PUBREC, in their original order.
     */
    public void resend(long now, Consumer<Packet> send) {
        inflight.resend(now, send);
    }

    /** A PUBACK for a QoS 1 message: frees its slot. False if nothing of that QoS 1 was in flight. */
    public boolean acknowledge(int packetId) {
        return landed(inflight.acknowledged(packetId), false);
    }

    /** A PUBREC for a QoS 2 message: it is now awaiting PUBCOMP. False if unknown. */
    public boolean received(int packetId) {
        var outgoing = inflight.received(packetId);
        if (outgoing != null && outgoing.seq() != 0 && kept != null) kept.journal.inFlight(clientId, outgoing.seq(), packetId, true);
        return outgoing != null;
    }

    /** A PUBREC with an error code ends the QoS 2 exchange (4.3.3): frees its slot. */
    public void abandon(int packetId) {
        var outgoing = inflight.remove(packetId);
        landed(outgoing, outgoing != null && outgoing.message().qos() == QoS.EXACTLY_ONCE);
    }

    /** A PUBCOMP: the QoS 2 exchange is complete and its slot free. False if unknown. */
    public boolean complete(int packetId) {
        return landed(inflight.completed(packetId), true);
    }

    /** A message out of flight, if there was one: the journal forgets it, and its bytes are free. */
    private boolean landed(InflightMessages.Outgoing outgoing, boolean inFlightToo) {
        if (outgoing == null) return false;
        forget(outgoing.seq(), inFlightToo);
        account();
        return true;
    }

    // ---- incoming QoS 2

    /**
     * An incoming QoS 2 PUBLISH. True if it is new and must be delivered onwards; false if it is a
     * resend of one still awaiting PUBREL, which must not be delivered twice ([MQTT-4.3.3-9]).
     */
    public boolean firstReceipt(int packetId) {
        if (awaitingPubRel == Collections.<Integer>emptySet()) awaitingPubRel = new HashSet<>();  // once: kept when emptied
        return awaitingPubRel.add(packetId);  // journaled by the shard, with the message it routes
    }

    /** An incoming PUBREL. True if the packet identifier was awaiting it. */
    public boolean release(int packetId) {
        if (!awaitingPubRel.remove(packetId)) return false;
        if (kept != null) kept.journal.awaitingPubRel(clientId, packetId, false);
        return true;
    }

    public int awaitingPubRelCount() { return awaitingPubRel.size(); }

    public int inflightCount() { return inflight.size(); }

    /** Queued messages, in memory and in the journal alone. */
    public int queuedCount() { return queue.size(); }

    /** Queued messages held in memory: at most the journal's {@link SessionJournal#queuedInMemory()}, but for a moment. */
    public int queuedInHeap() { return queue.size() - queue.spilled(); }

    public long droppedMessages() { return droppedMessages; }

    // ---- going offline, ending

    /** Drops QoS 0 messages from the queue: they are not kept for an offline client unless configured. */
    public void dropQueuedQos0() {
        if (limits.queueQos0Messages()) return;
        queue.removeIf(queued -> queued.message().qos() == QoS.AT_MOST_ONCE, dropped -> forget(dropped.seq(), false));
        // Those in the journal alone go as they are read back; until then they count towards the limits.
        if (kept != null) queue.dropSpilledQos0Before(kept.nextSeq);
        account();
    }

    /**
     * Takes out every queued or unacknowledged message that came through a shared subscription, for the
     * shard to give to another member when this session ends (4.8.2: "SHOULD send ... to another Client").
     */
    public List<Message> takeSharedMessages() {
        var taken = new ArrayList<Message>();
        inflight.removeIf(outgoing -> outgoing.message().isShared() && !outgoing.released(), outgoing -> {
            taken.add(outgoing.message());
            forget(outgoing.seq(), outgoing.message().qos() == QoS.EXACTLY_ONCE);
        });
        // The session is ending: what waits in the journal alone is read back, a window at a time.
        while (true) {
            queue.removeIf(queued -> queued.message().isShared(), queued -> {
                taken.add(queued.message());
                forget(queued.seq(), false);
            });
            // While the store fails they stay there: the session's end deletes them with the rest.
            if (kept == null || queue.spilled() == 0 || !kept.journal.readable()) {
                account();
                return taken;
            }
            readSpilled(kept.window());
        }
    }

    /**
     * The session after its connection failed: its delivery state is lost, in memory and in the
     * journal, and its sequence numbers go on (the store may still hold ended ones until it compacts).
     */
    public Session emptied() {
        for (var queued : queue.inMemory()) forget(queued.seq(), false);
        if (kept != null && queue.spilled() > 0) kept.journal.removedFrom(clientId, queue.spillFrom(), kept.nextSeq);
        for (var outgoing : inflight.all()) forget(outgoing.seq(), outgoing.message().qos() == QoS.EXACTLY_ONCE);
        var fresh = new Session(clientId, limits, memory);
        leaveMemory();
        if (kept == null) return fresh;
        kept.forgetRouted(clientId);
        for (int packetId : awaitingPubRel) kept.journal.awaitingPubRel(clientId, packetId, false);
        fresh.kept = new KeptJournal(kept.journal);
        fresh.kept.nextSeq = kept.nextSeq;
        return fresh;
    }

    // ---- recovery from the store

    /**
     * A message recovered from the journal, in sequence order: back in flight under {@code packetId}
     * ({@code released}: awaiting PUBCOMP), or queued when {@code packetId} is 0; past the window, or
     * past what the memory budget has room for, it waits in the journal alone.
     */
    public void restore(long seq, Message message, int packetId, boolean released) {
        if (kept != null) kept.nextSeq = Math.max(kept.nextSeq, seq + 1);
        if (packetId != 0) {
            (inflight = inflight.orNew()).restore(packetId, message, released, seq);
        } else if (kept != null && (queue.mustSpill(kept.window()) || !mayTake(message.payload().length() + MemoryBudget.MESSAGE_OVERHEAD))) {
            queue = queue.spill(message, seq);  // read back as the queue drains
        } else {
            queue = queue.add(message, seq);
        }
        account();
    }

    /** An incoming QoS 2 packet identifier recovered from the journal, still awaiting PUBREL. */
    public void restoreAwaitingPubRel(int packetId) {
        if (awaitingPubRel == Collections.<Integer>emptySet()) awaitingPubRel = new HashSet<>();
        awaitingPubRel.add(packetId);
    }
}
