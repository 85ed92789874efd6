package io.pekquitto.cluster.mesh;

import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Optional;

/**
 * A session moving to another node, as a {@code Handover} carries it (docs/cluster.md, The mesh's
 * messages on the wire): its {@link PortableSession}, fields in declaration order, with the mesh's
 * conventions (big-endian integers, strings as MQTT's UTF-8, lists as a 32-bit count, an optional as a
 * boolean and then its value):
 *
 * <ol>
 *   <li>client id: string;</li>
 *   <li>limits: max-queued-messages int32, max-queued-bytes int64, queue-qos0-messages boolean;</li>
 *   <li>in flight, in send order: count, then each its packet identifier (unsigned 16 bits), its message
 *       and whether it was released (PUBREC came: it awaits PUBCOMP);</li>
 *   <li>queued, in order: count, then each message;</li>
 *   <li>incoming QoS 2 packet identifiers awaiting PUBREL: count, then each unsigned 16 bits;</li>
 *   <li>dropped messages: int64;</li>
 *   <li>subscriptions: count, then each its filter (string), its options (QoS byte, No Local and Retain
 *       As Published booleans, Retain Handling byte) and its Subscription Identifier (int32);</li>
 *   <li>Session Expiry Interval: int64 seconds;</li>
 *   <li>expires in: optional int64 nanoseconds (none: it never expires);</li>
 *   <li>will: optional; its message, then how long ago its connection ended and how long until it is
 *       due, int64 nanoseconds each.</li>
 * </ol>
 *
 * <p>Messages are written as {@link MessageCodec} writes them: their times as ages on the sender's clock,
 * rebuilt on the receiver's. The session's own times are durations already, written as they are.
 * What the portable form refuses (a packet identifier of 0, a QoS 0 message in flight) is refused on
 * reading too, as {@link MeshFormatException}.
 */
final class SessionCodec {
    private SessionCodec() {}

    static void write(MeshOutput out, PortableSession session, long now) {
        var limits = session.limits();
        out.string(session.clientId()).int32(limits.maxQueuedMessages()).int64(limits.maxQueuedBytes())
                .bool(limits.queueQos0Messages());
        out.int32(session.inFlight().size());
        for (var flight : session.inFlight()) {
            MessageCodec.write(out.uint16(flight.packetId()), flight.message(), now);
            out.bool(flight.released());
        }
        out.int32(session.queued().size());
        for (var message : session.queued()) MessageCodec.write(out, message, now);
        out.int32(session.awaitingPubRel().size());
        for (int packetId : session.awaitingPubRel()) out.uint16(packetId);
        out.int64(session.droppedMessages()).int32(session.subscriptions().size());
        session.subscriptions().forEach((filter, entry) -> out.string(filter).entry(entry));
        out.int64(session.sessionExpiryInterval()).bool(session.expiresIn().isPresent());
        session.expiresIn().ifPresent(left -> out.int64(left.toNanos()));
        out.bool(session.will().isPresent());
        session.will().ifPresent(will -> {
            MessageCodec.write(out, will.message(), now);
            out.int64(will.endedAgo().toNanos()).int64(will.dueIn().toNanos());
        });
    }

    static PortableSession read(MeshInput in, long now) {
        var clientId = in.string();
        var limits = new PortableSession.Limits(in.int32(), in.int64(), in.bool());
        var inFlight = new ArrayList<PortableSession.InFlight>();
        for (int i = in.count(); i > 0; i--) {
            int packetId = in.uint16();
            inFlight.add(new PortableSession.InFlight(packetId, MessageCodec.read(in, now), in.bool()));
        }
        var queued = new ArrayList<Message>();
        for (int i = in.count(); i > 0; i--) queued.add(MessageCodec.read(in, now));
        var awaitingPubRel = new HashSet<Integer>();
        for (int i = in.count(); i > 0; i--) {
            if (!awaitingPubRel.add(in.uint16())) throw new MeshFormatException("a packet identifier awaiting PUBREL twice");
        }
        long dropped = in.int64();
        var subscriptions = new HashMap<String, SubscriptionEntry>();
        for (int i = in.count(); i > 0; i--) {
            if (subscriptions.put(in.string(), in.entry()) != null) throw new MeshFormatException("a filter subscribed twice");
        }
        long expiryInterval = in.int64();
        var expiresIn = in.bool() ? Optional.of(Duration.ofNanos(in.int64())) : Optional.<Duration>empty();
        var will = in.bool()
                ? Optional.of(new PortableSession.Will(MessageCodec.read(in, now), Duration.ofNanos(in.int64()), Duration.ofNanos(in.int64())))
                : Optional.<PortableSession.Will>empty();
        return new PortableSession(clientId, limits, inFlight, queued, awaitingPubRel, dropped, subscriptions,
                expiryInterval, expiresIn, will);
    }
}
