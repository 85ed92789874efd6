package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * The receiving side of a bridge's link (4.3.2, 4.3.3 as a client receives): a PUBLISH from the remote is
 * acknowledged only once it is routed here (and written, with a store), so the remote keeps it until then.
 * The local answers come in the order the publishes went, so the acknowledgements they wait for are a
 * queue. A QoS 2 message is routed once per packet id until its PUBREL, however often the remote sends it.
 * Acknowledgements owed on a link that is gone are not sent on the next one: the remote sends again what it
 * had no acknowledgement for.
 */
final class InboundFlow {
    /** What to do with a PUBLISH from the remote. */
    enum Step {
        /** Publish it here; its acknowledgement waits for {@link #locallyPublished()}. */
        ROUTE,
        /** Publish it here; nothing to acknowledge (QoS 0). */
        ROUTE_ONLY,
        /** Send {@link #reply} now, route nothing: a QoS 2 resend, or a message no topic entry takes. */
        REPLY,
        /** Nothing now: a QoS 2 resend whose first copy is still being routed. */
        NOTHING
    }

    private record Awaiting(long link, int packetId, QoS qos) {}

    private final ArrayDeque<Awaiting> awaiting = new ArrayDeque<>();
    /** QoS 2 packet ids received and not yet released: true once routed (PUBREC sent or due). */
    private final Map<Integer, Boolean> exactlyOnce = new HashMap<>();
    private long link;
    private Packet reply;

    /** A new link is up: acknowledgements owed to the old one are dropped; without the remote's session, its QoS 2 ids too. */
    void linkUp(boolean sessionPresent) {
        link++;
        if (!sessionPresent) exactlyOnce.clear();
    }

    /** @param routable whether a topic entry takes the message in */
    Step received(Publish publish, boolean routable) {
        reply = null;
        int id = publish.packetId();
        switch (publish.qos()) {
            case AT_MOST_ONCE:
                return routable ? Step.ROUTE_ONLY : Step.NOTHING;
            case AT_LEAST_ONCE:
                if (routable) return await(id, QoS.AT_LEAST_ONCE);
                reply = new PubAck(id);
                return Step.REPLY;
            default:
                var routed = exactlyOnce.get(id);
                if (routed != null) {
                    if (!routed) return Step.NOTHING;  // [MQTT-4.3.3-9]: acknowledged, not delivered again
                    reply = new PubRec(id);
                    return Step.REPLY;
                }
                exactlyOnce.put(id, !routable);  // routed once its answer comes; one not routed is done now
                if (routable) return await(id, QoS.EXACTLY_ONCE);
                reply = new PubRec(id);
                return Step.REPLY;
        }
    }

    private Step await(int packetId, QoS qos) {
        awaiting.add(new Awaiting(link, packetId, qos));
        return Step.ROUTE;
    }

    /** The packet {@link Step#REPLY} asks for. */
    Packet reply() {
        return reply;
    }

    /** The oldest routed publish is answered here: its PUBACK or PUBREC, or null if none is due on this link. */
    Packet locallyPublished() {
        var answered = awaiting.poll();
        if (answered == null) return null;
        if (answered.qos() == QoS.EXACTLY_ONCE) exactlyOnce.replace(answered.packetId(), true);
        if (answered.link() != link) return null;
        return answered.qos() == QoS.AT_LEAST_ONCE ? new PubAck(answered.packetId()) : new PubRec(answered.packetId());
    }

    /** PUBREL: the id is free again ([MQTT-4.3.3-11]); PUBCOMP goes back. */
    PubComp released(int packetId) {
        exactlyOnce.remove(packetId);
        return new PubComp(packetId);
    }

    /** Publishes routed here whose answer has not come yet. */
    int awaiting() {
        return awaiting.size();
    }
}
