package io.pekquitto.shards.session;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A session's outgoing QoS 1/2 messages awaiting PUBACK, PUBREC or PUBCOMP, by packet identifier in send
 * order, and what they hold in the heap (which the memory budget counts). It hands out the packet identifiers:
 * non-zero ([MQTT-2.2.1-3]), cycling through 1..65535 and skipping those still in use ([MQTT-2.2.1-4]:
 * reusable only once the exchange has completed). The caller asks only while it has a free in-flight
 * slot, and the window is at most 65,535, so a free identifier always exists.
 */
final class InflightMessages {
    /** A sent message; {@code released} once PUBREC came and PUBREL went out; {@code seq} its journal's, or 0. */
    record Outgoing(Message message, boolean released, long seq) {}

    /**
     * What every session has in flight until its first QoS 1/2 message: an idle client's session pays for none. Never
     * changed: {@link #start} and {@link #restore} put a message in flight in a new one.
     */
    static final InflightMessages NONE = new InflightMessages();

    /** Shared and empty until the first: a broker holds many idle sessions. Kept once made. */
    private Map<Integer, Outgoing> byPacketId = Collections.emptyMap();
    /** Their payloads' bytes. */
    private long payload;
    private int next = 1;

    /** What a message is put in flight in: this, or a new one in place of {@link #NONE}. */
    InflightMessages orNew() {
        return this == NONE ? new InflightMessages() : this;
    }

    /** Puts a message in flight under a new packet identifier, which it returns; not in {@link #NONE} ({@link #orNew}). */
    int start(Message message, long seq) {
        int packetId = allocate();
        put(packetId, new Outgoing(message, false, seq));
        return packetId;
    }

    private int allocate() {
        for (int tries = 0; tries < 65_535; tries++) {
            int candidate = next;
            next = next == 65_535 ? 1 : next + 1;
            if (!byPacketId.containsKey(candidate)) return candidate;
        }
        throw new IllegalStateException("all 65535 packet identifiers are in use");
    }

    /** A message recovered from the store, in flight under the packet identifier it had; not in {@link #NONE}. */
    void restore(int packetId, Message message, boolean released, long seq) {
        put(packetId, new Outgoing(message, released, seq));
    }

    private void put(int packetId, Outgoing outgoing) {
        if (this == NONE) throw new IllegalStateException("NONE is every idle session's: put in flight in orNew()");
        if (byPacketId == Collections.<Integer, Outgoing>emptyMap()) byPacketId = new LinkedHashMap<>();
        byPacketId.put(packetId, outgoing);
        payload += outgoing.message().payload().length();
    }

    /** A PUBACK: the QoS 1 message it acknowledges is out of flight, and returned; null if none was. */
    Outgoing acknowledged(int packetId) {
        var outgoing = byPacketId.get(packetId);
        return outgoing == null || outgoing.message().qos() != QoS.AT_LEAST_ONCE ? null : remove(packetId);
    }

    /** A PUBREC: the QoS 2 message it answers now awaits PUBCOMP, and is returned; null if unknown. */
    Outgoing received(int packetId) {
        var outgoing = byPacketId.get(packetId);
        if (outgoing == null || outgoing.message().qos() != QoS.EXACTLY_ONCE) return null;
        byPacketId.put(packetId, new Outgoing(outgoing.message(), true, outgoing.seq()));
        return outgoing;
    }

    /** A PUBCOMP: the QoS 2 message released before is out of flight, and returned; null if none was. */
    Outgoing completed(int packetId) {
        var outgoing = byPacketId.get(packetId);
        return outgoing == null || !outgoing.released() ? null : remove(packetId);
    }

    /** Takes the message out of flight, whatever its state; null if none has the identifier. */
    Outgoing remove(int packetId) {
        var removed = byPacketId.remove(packetId);
        if (removed != null) payload -= removed.message().payload().length();
        return removed;
    }

    /**
     * What to resend on a new connection ([MQTT-4.4.0-1]): every unacknowledged PUBLISH with DUP set, and
     * PUBREL for those already past PUBREC, in their original order.
     */
    void resend(long now, Consumer<Packet> send) {
        for (var entry : new ArrayList<>(byPacketId.entrySet())) {
            var outgoing = entry.getValue();
            send.accept(outgoing.released()
                    ? new PubRel(entry.getKey())
                    : outgoing.message().toPublish(entry.getKey(), true, now));
        }
    }

    /** Takes out the messages {@code test} accepts, each given to {@code removed}. */
    void removeIf(Predicate<Outgoing> test, Consumer<Outgoing> removed) {
        for (var it = byPacketId.values().iterator(); it.hasNext(); ) {
            var outgoing = it.next();
            if (test.test(outgoing)) {
                it.remove();
                payload -= outgoing.message().payload().length();
                removed.accept(outgoing);
            }
        }
    }

    Collection<Outgoing> all() {
        return byPacketId.values();
    }

    /** The messages in flight by packet identifier, in send order. */
    Map<Integer, Outgoing> byPacketId() {
        return Collections.unmodifiableMap(byPacketId);
    }

    int size() {
        return byPacketId.size();
    }

    /** What they hold in the heap: their payloads, and each its own objects ({@link MemoryBudget#MESSAGE_OVERHEAD}). */
    long bytes() {
        return payload + (long) byPacketId.size() * MemoryBudget.MESSAGE_OVERHEAD;
    }
}
