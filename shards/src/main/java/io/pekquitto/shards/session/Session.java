package io.pekquitto.shards.session;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The delivery state of one MQTT session (4.1): outgoing QoS 1/2 messages queued and in flight, and the
 * packet identifiers of incoming QoS 2 messages awaiting PUBREL. It outlives connections when the
 * session does: the shard keeps it while the client is offline and hands it to the client's next
 * connection. Plain rules, no I/O: the caller sends what this returns.
 *
 * <p>Subscriptions are not here: they live in the shard's index, which routes to the session.
 */
public final class Session {
    /** The Session Expiry Interval that means "never" (3.1.2.11.2). */
    public static final long NEVER_EXPIRES = 0xFFFF_FFFFL;

    private final String clientId;
    private final int maxQueuedMessages;
    private final boolean queueQos0Messages;
    private final long maxQueuedBytes;
    private long queuedBytes;

    // Small until used: a broker holds many idle sessions (DESIGN.md, Connections and parking).
    /** Messages not yet sent, oldest first. */
    private final ArrayDeque<Message> queue = new ArrayDeque<>(1);
    /** Sent QoS 1/2 messages awaiting PUBACK / PUBREC / PUBCOMP, in send order; shared and empty until the first. */
    private Map<Integer, Outgoing> inflight = Collections.emptyMap();
    /** Incoming QoS 2 packet identifiers delivered onwards and awaiting PUBREL (4.3.3, method B); likewise. */
    private Set<Integer> awaitingPubRel = Collections.emptySet();
    private final PacketIdAllocator packetIds = new PacketIdAllocator();
    private long droppedMessages;

    /** A sent message; {@code released} once PUBREC came and PUBREL went out. */
    private record Outgoing(Message message, boolean released) {}

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
        if (offline && message.qos() == QoS.AT_MOST_ONCE && !queueQos0Messages) return false;
        boolean full = queue.size() >= maxQueuedMessages
                || (maxQueuedBytes > 0 && queuedBytes + message.payload().length() > maxQueuedBytes);
        if (full && !overLimit) {
            droppedMessages++;
            return false;
        }
        queue.add(message);
        queuedBytes += message.payload().length();
        return true;
    }

    /**
     * Moves queued messages into the in-flight window while it has room under the client's Receive
     * Maximum ([MQTT-4.9.0-2]) and hands each PUBLISH to {@code send}. QoS 0 messages leave the queue
     * without taking a slot.
     */
    public void drain(int receiveMaximum, long now, Consumer<Publish> send) {
        while (!queue.isEmpty()) {
            var next = queue.peek();
            if (next.isExpired(now)) {
                take();  // [MQTT-3.3.2-5] expired before onward delivery started
                continue;
            }
            if (next.qos() == QoS.AT_MOST_ONCE) {
                take();
                send.accept(next.toPublish(0, false, now));
                continue;
            }
            if (inflight.size() >= receiveMaximum) return;
            take();
            send.accept(startFlight(next, now));
        }
    }

    private Message take() {
        var message = queue.poll();
        queuedBytes -= message.payload().length();
        return message;
    }

    /** Whether a new QoS 1/2 message may go straight out, or must queue behind others. */
    public boolean canSendNow(int receiveMaximum) {
        return queue.isEmpty() && inflight.size() < receiveMaximum;
    }

    /** Puts a QoS 1/2 message in flight and returns its PUBLISH. */
    public Publish startFlight(Message message, long now) {
        int packetId = packetIds.allocate(inflight::containsKey);
        if (inflight == Collections.<Integer, Outgoing>emptyMap()) inflight = new LinkedHashMap<>();  // once: kept when emptied
        inflight.put(packetId, new Outgoing(message, false));
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
        return true;
    }

    /** A PUBREC for a QoS 2 message: it is now awaiting PUBCOMP. False if unknown. */
    public boolean received(int packetId) {
        var outgoing = inflight.get(packetId);
        if (outgoing == null || outgoing.message().qos() != QoS.EXACTLY_ONCE) return false;
        inflight.put(packetId, new Outgoing(outgoing.message(), true));
        return true;
    }

    /** A PUBREC with an error code ends the QoS 2 exchange (4.3.3): frees its slot. */
    public void abandon(int packetId) {
        inflight.remove(packetId);
    }

    /** A PUBCOMP: the QoS 2 exchange is complete and its slot free. False if unknown. */
    public boolean complete(int packetId) {
        var outgoing = inflight.get(packetId);
        if (outgoing == null || !outgoing.released()) return false;
        inflight.remove(packetId);
        return true;
    }

    /**
     * An incoming QoS 2 PUBLISH. True if it is new and must be delivered onwards; false if it is a
     * resend of one still awaiting PUBREL, which must not be delivered twice ([MQTT-4.3.3-9]).
     */
    public boolean firstReceipt(int packetId) {
        if (awaitingPubRel == Collections.<Integer>emptySet()) awaitingPubRel = new HashSet<>();  // once: kept when emptied
        return awaitingPubRel.add(packetId);
    }

    /** An incoming PUBREL. True if the packet identifier was awaiting it. */
    public boolean release(int packetId) {
        return awaitingPubRel.remove(packetId);
    }

    public int awaitingPubRelCount() { return awaitingPubRel.size(); }

    public int inflightCount() { return inflight.size(); }

    public int queuedCount() { return queue.size(); }

    public long droppedMessages() { return droppedMessages; }

    /** Drops QoS 0 messages from the queue: they are not kept for an offline client unless configured. */
    public void dropQueuedQos0() {
        if (queueQos0Messages) return;
        for (Iterator<Message> it = queue.iterator(); it.hasNext(); ) {
            var message = it.next();
            if (message.qos() == QoS.AT_MOST_ONCE) {
                it.remove();
                queuedBytes -= message.payload().length();
            }
        }
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
            }
        }
        for (var it = queue.iterator(); it.hasNext(); ) {
            var message = it.next();
            if (message.isShared()) {
                taken.add(message);
                it.remove();
                queuedBytes -= message.payload().length();
            }
        }
        return taken;
    }

}
