package io.pekquitto.shards.session;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.QueuedMessages.Queued;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 */
public final class Session {
    /** The Session Expiry Interval that means "never" (3.1.2.11.2). */
    public static final long NEVER_EXPIRES = 0xFFFF_FFFFL;

    private final String clientId;
    private final int maxQueuedMessages;
    private final boolean queueQos0Messages;
    private final long maxQueuedBytes;

    /** Messages not yet sent, oldest first. */
    private final QueuedMessages queue = new QueuedMessages();
    /** Sent QoS 1/2 messages awaiting PUBACK / PUBREC / PUBCOMP, in send order; shared and empty until the first. */
    private Map<Integer, Outgoing> inflight = Collections.emptyMap();
    /** Incoming QoS 2 packet identifiers delivered onwards and awaiting PUBREL (4.3.3, method B); likewise. */
    private Set<Integer> awaitingPubRel = Collections.emptySet();
    private final PacketIdAllocator packetIds = new PacketIdAllocator();
    private long droppedMessages;
    /** Null unless the session is persistent and a store keeps it: most sessions of a busy broker are not. */
    private Kept kept;

    /** How a kept session is journaled. */
    private static final class Kept {
        SessionJournal journal;
        long nextSeq = 1;
        /** Journaled by the shard for the attached connection, not yet taken by its window; null until used. */
        ArrayDeque<Queued> routed;

        Kept(SessionJournal journal) {
            this.journal = journal;
        }
    }

    /** A sent message; {@code released} once PUBREC came and PUBREL went out. */
    private record Outgoing(Message message, boolean released, long seq) {}

    public Session(String clientId, int maxQueuedMessages, boolean queueQos0Messages) {
        this(clientId, maxQueuedMessages, 0, queueQos0Messages);
    }

    /** @param maxQueuedBytes payload bytes the queue may hold, 0 for no limit ({@code max-queued-bytes}) */
    public Session(String clientId, int maxQueuedMessages, long maxQueuedBytes, boolean queueQos0Messages) {
        this.clientId = clientId;
        this.maxQueuedMessages = maxQueuedMessages;
        this.maxQueuedBytes = maxQueuedBytes;
        this.queueQos0Messages = queueQos0Messages;
    }

    public String clientId() { return clientId; }

    /** Where the session's changes are written from now on: the holding shard's journal, or NONE. */
    public void journalTo(SessionJournal newJournal) {
        if (!newJournal.isKept()) {
            kept = null;
        } else if (kept == null) {
            kept = new Kept(newJournal);
        } else {
            kept.journal = newJournal;
        }
    }

    /** The journal the session writes to. */
    public SessionJournal journal() {
        return kept == null ? SessionJournal.NONE : kept.journal;
    }

    /**
     * The shard routed a QoS 1/2 message to this session's connection: journaled now, in the shard's
     * turn, so that the publisher's acknowledgement covers it; the window takes it when it arrives.
     */
    public void routed(Message message) {
        if (kept == null || message.qos() == QoS.AT_MOST_ONCE || isRouted(message)) return;
        long seq = kept.nextSeq++;
        kept.journal.message(clientId, seq, message);
        if (kept.routed == null) kept.routed = new ArrayDeque<>(2);
        kept.routed.add(new Queued(message, seq));
    }

    /** Whether this very delivery was journaled already (it bounced back from a connection, or was held meanwhile). */
    private boolean isRouted(Message message) {
        if (kept.routed == null) return false;
        for (var waiting : kept.routed) if (waiting.message() == message) return true;
        return false;
    }

    /** The sequence number of a message: the one it was routed under, or a new one journaled now; 0 if none is kept. */
    private long seqOf(Message message) {
        if (kept == null || message.qos() == QoS.AT_MOST_ONCE) return 0;
        long routedUnder = takeRouted(message);
        return routedUnder != 0 ? routedUnder : journaled(message);
    }

    private long journaled(Message message) {
        long seq = kept.nextSeq++;
        kept.journal.message(clientId, seq, message);
        return seq;
    }

    private int window() {
        return kept.journal.queuedInMemory();
    }

    /** The sequence number this very delivery was routed under (it is taken), or 0. */
    private long takeRouted(Message message) {
        if (kept == null || kept.routed == null) return 0;
        for (var it = kept.routed.iterator(); it.hasNext(); ) {
            var waiting = it.next();
            if (waiting.message() == message) {  // by identity: the very delivery the shard routed
                it.remove();
                return waiting.seq();
            }
        }
        return 0;
    }

    /** A delivery the connection will not send (it expired on the way): out of the journal. */
    public void dropped(Message message) {
        forget(takeRouted(message), false);
    }

    private void forget(long seq, boolean inFlightToo) {
        if (seq != 0 && kept != null) kept.journal.removed(clientId, seq, inFlightToo);
    }

    /**
     * Queues a message for a client that is offline or whose in-flight window is full. Returns false
     * when the message is dropped: the queue is at {@code max-queued-messages}, or it is QoS 0 and
     * {@code queueOffline} asks for the offline rule with {@code queue-qos0-messages} off.
     */
    public boolean enqueue(Message message, boolean offline) {
        return enqueue(message, offline, false);
    }

    /**
     * Queues a message; with {@code overLimit}, past {@code max-queued-messages} too. The connection
     * asks for that while its shard is slowing the publishers down for it (a congestion): what is
     * already on its way is then bounded by the publishers' and the mesh's windows, and is kept.
     */
    public boolean enqueue(Message message, boolean offline, boolean overLimit) {
        boolean qos0 = message.qos() == QoS.AT_MOST_ONCE;
        if (offline && qos0 && !queueQos0Messages) return false;
        boolean full = queue.size() >= maxQueuedMessages
                || (maxQueuedBytes > 0 && queue.bytes() + message.payload().length() > maxQueuedBytes);
        if (full && !overLimit) {
            droppedMessages++;
            forget(takeRouted(message), false);  // journaled only if it was routed to the connection
            return false;
        }
        // Only an offline client's queue goes to the store: an attached one drains soon, and a read back
        // costs a write first (a wait for the writer, with fsync). Behind spilled messages, every one spills.
        boolean spill = kept != null && (offline ? queue.mustSpill(window()) : queue.spilled() > 0);
        // QoS 0 is journaled for a client offline (it is kept for it) or past the window (the queue's order).
        long seq = qos0 ? (kept != null && (offline || spill) ? journaled(message) : 0) : seqOf(message);
        if (spill) {
            queue.spill(message, seq);
        } else {
            queue.add(message, seq);
        }
        return true;
    }

    /**
     * Moves queued messages into the in-flight window while it has room under the client's Receive
     * Maximum ([MQTT-4.9.0-2]) and hands each PUBLISH to {@code send}. QoS 0 messages leave the queue
     * without taking a slot.
     */
    public void drain(int receiveMaximum, long now, Consumer<Publish> send) {
        drain(receiveMaximum, now, send, waited -> { });
    }

    /** {@link #drain(int, long, Consumer)}, telling {@code waited} how long each message sent waited since it was received. */
    public void drain(int receiveMaximum, long now, Consumer<Publish> send, LongConsumer waited) {
        while (true) {
            if (kept != null && queue.needsReading(window()) && kept.journal.readable()) readSpilled(queue.roomIn(window()));
            var next = queue.peek();
            if (next == null) return;
            var message = next.message();
            if (message.isExpired(now)) {
                queue.poll();  // [MQTT-3.3.2-5] expired before onward delivery started
                forget(next.seq(), false);
                continue;
            }
            if (message.qos() == QoS.AT_MOST_ONCE) {
                queue.poll();
                forget(next.seq(), false);
                waited.accept(now - message.receivedAt());
                send.accept(message.toPublish(0, false, now));
                continue;
            }
            if (inflight.size() >= receiveMaximum) return;
            queue.poll();
            waited.accept(now - message.receivedAt());
            send.accept(startFlight(message, next.seq(), now));
        }
    }

    /** Up to {@code atMost} spilled messages back from the journal. */
    private void readSpilled(int atMost) {
        var heldElsewhere = new HashSet<Long>();
        for (var outgoing : inflight.values()) heldElsewhere.add(outgoing.seq());
        if (kept.routed != null) for (var waiting : kept.routed) heldElsewhere.add(waiting.seq());
        queue.read(kept.journal, clientId, atMost, heldElsewhere, dropped -> forget(dropped.seq(), false));
    }

    /** Whether a new QoS 1/2 message may go straight out, or must queue behind others. */
    public boolean canSendNow(int receiveMaximum) {
        return queue.isEmpty() && inflight.size() < receiveMaximum;
    }

    /** Puts a QoS 1/2 message in flight and returns its PUBLISH. */
    public Publish startFlight(Message message, long now) {
        return startFlight(message, seqOf(message), now);
    }

    private Publish startFlight(Message message, long seq, long now) {
        int packetId = packetIds.allocate(inflight::containsKey);
        if (inflight == Collections.<Integer, Outgoing>emptyMap()) inflight = new LinkedHashMap<>();  // once: kept when emptied
        inflight.put(packetId, new Outgoing(message, false, seq));
        // Only QoS 2 needs its packet identifier back after a crash: the client may hold it awaiting PUBREL.
        if (seq != 0 && kept != null && message.qos() == QoS.EXACTLY_ONCE) kept.journal.inFlight(clientId, seq, packetId, false);
        return message.toPublish(packetId, false, now);
    }

    /**
     * What to resend when the session resumes on a new connection ([MQTT-4.4.0-1]): every unacknowledged
     * PUBLISH with DUP set, and PUBREL for those already past PUBREC, in their original order.
     */
    public void resend(long now, Consumer<Packet> send) {
        for (var entry : List.copyOf(inflight.entrySet())) {
            var outgoing = entry.getValue();
            send.accept(outgoing.released()
                    ? new PubRel(entry.getKey())
                    : outgoing.message().toPublish(entry.getKey(), true, now));
        }
    }

    /** A PUBACK for a QoS 1 message: frees its slot. False if nothing of that QoS 1 was in flight. */
    public boolean acknowledge(int packetId) {
        var outgoing = inflight.get(packetId);
        if (outgoing == null || outgoing.message().qos() != QoS.AT_LEAST_ONCE) return false;
        inflight.remove(packetId);
        forget(outgoing.seq(), false);
        return true;
    }

    /** A PUBREC for a QoS 2 message: it is now awaiting PUBCOMP. False if unknown. */
    public boolean received(int packetId) {
        var outgoing = inflight.get(packetId);
        if (outgoing == null || outgoing.message().qos() != QoS.EXACTLY_ONCE) return false;
        inflight.put(packetId, new Outgoing(outgoing.message(), true, outgoing.seq()));
        if (outgoing.seq() != 0 && kept != null) kept.journal.inFlight(clientId, outgoing.seq(), packetId, true);
        return true;
    }

    /** A PUBREC with an error code ends the QoS 2 exchange (4.3.3): frees its slot. */
    public void abandon(int packetId) {
        var outgoing = inflight.remove(packetId);
        if (outgoing != null) forget(outgoing.seq(), outgoing.message().qos() == QoS.EXACTLY_ONCE);
    }

    /** A PUBCOMP: the QoS 2 exchange is complete and its slot free. False if unknown. */
    public boolean complete(int packetId) {
        var outgoing = inflight.get(packetId);
        if (outgoing == null || !outgoing.released()) return false;
        inflight.remove(packetId);
        forget(outgoing.seq(), true);
        return true;
    }

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

    /** Drops QoS 0 messages from the queue: they are not kept for an offline client unless configured. */
    public void dropQueuedQos0() {
        if (queueQos0Messages) return;
        queue.removeIf(queued -> queued.message().qos() == QoS.AT_MOST_ONCE, dropped -> forget(dropped.seq(), false));
        // Those in the journal alone go as they are read back; until then they count towards the limits.
        if (kept != null) queue.dropSpilledQos0Before(kept.nextSeq);
    }

    /**
     * Takes out every queued or unacknowledged message that came through a shared subscription, for the
     * shard to give to another member when this session ends (4.8.2: "SHOULD send ... to another Client").
     */
    public List<Message> takeSharedMessages() {
        var taken = new ArrayList<Message>();
        for (var it = inflight.values().iterator(); it.hasNext(); ) {
            var outgoing = it.next();
            if (outgoing.message().isShared() && !outgoing.released()) {
                taken.add(outgoing.message());
                it.remove();
                forget(outgoing.seq(), outgoing.message().qos() == QoS.EXACTLY_ONCE);
            }
        }
        // The session is ending: what waits in the journal alone is read back, a window at a time.
        while (true) {
            queue.removeIf(queued -> queued.message().isShared(), queued -> {
                taken.add(queued.message());
                forget(queued.seq(), false);
            });
            // While the store fails they stay there: the session's end deletes them with the rest.
            if (kept == null || queue.spilled() == 0 || !kept.journal.readable()) return taken;
            readSpilled(window());
        }
    }

    /**
     * The session after its connection failed: its delivery state is lost, in memory and in the
     * journal, and its sequence numbers go on (the store may still hold ended ones until it compacts).
     */
    public Session emptied() {
        for (var queued : queue.inMemory()) forget(queued.seq(), false);
        if (kept != null && queue.spilled() > 0) kept.journal.removedFrom(clientId, queue.spillFrom(), kept.nextSeq);
        for (var outgoing : inflight.values()) forget(outgoing.seq(), outgoing.message().qos() == QoS.EXACTLY_ONCE);
        var fresh = new Session(clientId, maxQueuedMessages, maxQueuedBytes, queueQos0Messages);
        if (kept == null) return fresh;
        if (kept.routed != null) for (var waiting : kept.routed) forget(waiting.seq(), false);
        for (int packetId : awaitingPubRel) kept.journal.awaitingPubRel(clientId, packetId, false);
        fresh.kept = new Kept(kept.journal);
        fresh.kept.nextSeq = kept.nextSeq;
        return fresh;
    }

    // ---- recovery from the store

    /**
     * A message recovered from the journal, in sequence order: back in flight under {@code packetId}
     * ({@code released}: awaiting PUBCOMP), or queued when {@code packetId} is 0.
     */
    public void restore(long seq, Message message, int packetId, boolean released) {
        if (kept != null) kept.nextSeq = Math.max(kept.nextSeq, seq + 1);
        if (packetId == 0) {
            if (kept != null && queue.mustSpill(window())) {
                queue.spill(message, seq);  // read back as the queue drains
            } else {
                queue.add(message, seq);
            }
            return;
        }
        if (inflight == Collections.<Integer, Outgoing>emptyMap()) inflight = new LinkedHashMap<>();
        inflight.put(packetId, new Outgoing(message, released, seq));
    }

    /** An incoming QoS 2 packet identifier recovered from the journal, still awaiting PUBREL. */
    public void restoreAwaitingPubRel(int packetId) {
        if (awaitingPubRel == Collections.<Integer>emptySet()) awaitingPubRel = new HashSet<>();
        awaitingPubRel.add(packetId);
    }

}
