package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a bridge sent the remote at QoS 1 and 2 and the remote has not yet acknowledged, as the client
 * side of 4.3.2 and 4.3.3, in the order sent; each with the handle of the local message it carries, which
 * is acknowledged here only once the remote has it (so that, until then, the message stays in the
 * bridge's local session). At most {@code maximum} at once (the bridge's max-inflight, or less if an MQTT 5
 * remote's Receive Maximum says so). After a reconnect everything is sent again, in order ({@link #resend}).
 *
 * @param <H> the handle of a local message
 */
final class OutboundWindow<H> {
    private static final int MAX_PACKET_ID = 0xFFFF;

    private static final class InFlight<H> {
        final H handle;
        Publish publish;
        /** PUBREC came: what is left is PUBREL and PUBCOMP (4.3.3). */
        boolean released;

        InFlight(H handle, Publish publish) {
            this.handle = handle;
            this.publish = publish;
        }
    }

    private final Map<Integer, InFlight<H>> inFlight = new LinkedHashMap<>();
    private int maximum;
    private int lastPacketId;

    OutboundWindow(int maximum) {
        this.maximum = maximum;
    }

    /** An MQTT 5 remote's Receive Maximum lowers the window ([MQTT-3.3.4-7]). */
    void limitTo(int receiveMaximum) {
        maximum = Math.min(maximum, receiveMaximum);
    }

    boolean isFull() {
        return inFlight.size() >= maximum;
    }

    int size() {
        return inFlight.size();
    }

    /**
     * The PUBLISH to send for a QoS 1 or 2 message, with a packet id no message in flight has
     * ([MQTT-2.2.1-3]), kept until acknowledged.
     *
     * @throws IllegalStateException if the window is full
     */
    Publish send(H handle, String topic, Binary payload, QoS qos, boolean retain, Properties properties) {
        if (qos == QoS.AT_MOST_ONCE) throw new IllegalArgumentException("QoS 0 is not kept in flight");
        if (isFull()) throw new IllegalStateException("the window is full");
        int id = nextPacketId();
        var publish = new Publish(topic, payload, qos, retain, false, id, properties);
        inFlight.put(id, new InFlight<>(handle, publish));
        return publish;
    }

    private int nextPacketId() {
        do {
            lastPacketId = lastPacketId == MAX_PACKET_ID ? 1 : lastPacketId + 1;
        } while (inFlight.containsKey(lastPacketId));
        return lastPacketId;
    }

    /** PUBACK: the QoS 1 message's handle, done; null if no QoS 1 message waits with that id (ignored). */
    H acknowledged(int packetId) {
        var entry = inFlight.get(packetId);
        if (entry == null || entry.publish.qos() != QoS.AT_LEAST_ONCE) return null;
        inFlight.remove(packetId);
        return entry.handle;
    }

    /**
     * PUBREC: the PUBREL to send ([MQTT-4.3.3-4]); null for an unknown id. A PUBREC with an error
     * reason ends the exchange (4.3.3): {@link #refused} then.
     */
    PubRel received(int packetId) {
        var entry = inFlight.get(packetId);
        if (entry == null || entry.publish.qos() != QoS.EXACTLY_ONCE) return null;
        entry.released = true;
        return new PubRel(packetId);
    }

    /** PUBCOMP, or a PUBACK or PUBREC with an error reason: the handle, done (the remote will not have it); null if unknown. */
    H completed(int packetId) {
        var entry = inFlight.remove(packetId);
        return entry == null ? null : entry.handle;
    }

    /**
     * What to send again on a new link, in the order first sent: each PUBLISH with DUP set
     * ([MQTT-4.4.0-1]), each PUBREL past its PUBREC if the remote kept the session; without it those
     * are done (the remote had them at PUBREC) and their handles come back in {@code done}.
     */
    List<Packet> resend(boolean sessionPresent, List<H> done) {
        var packets = new ArrayList<Packet>();
        for (var iterator = inFlight.entrySet().iterator(); iterator.hasNext(); ) {
            var entry = iterator.next().getValue();
            if (entry.released) {
                if (sessionPresent) {
                    packets.add(new PubRel(entry.publish.packetId()));
                } else {
                    done.add(entry.handle);
                    iterator.remove();
                }
            } else {
                var publish = entry.publish;
                entry.publish = new Publish(publish.topic(), publish.payload(), publish.qos(), publish.retain(), true,
                        publish.packetId(), publish.properties());
                packets.add(entry.publish);
            }
        }
        return packets;
    }
}
