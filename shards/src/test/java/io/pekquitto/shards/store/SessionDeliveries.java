package io.pekquitto.shards.store;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * What a session sends a client that resumes it, as text, every exchange completed: first what was in
 * flight again ({@code PUBLISH <packet id> dup <QoS> <payload>}, {@code PUBREL <packet id>}), then its queue
 * ({@code <QoS> <payload>}), two in flight at a time.
 */
final class SessionDeliveries {
    private SessionDeliveries() {}

    static List<String> of(Session session, long now) {
        var sent = new ArrayList<String>();
        var resent = new ArrayList<Packet>();
        session.resend(now, resent::add);
        for (var packet : resent) {
            if (packet instanceof Publish publish) {
                sent.add("PUBLISH " + publish.packetId() + (publish.dup() ? " dup " : " ") + publish.qos() + " " + publish.payload().asUtf8());
                settle(session, publish);
            } else {
                int packetId = ((PubRel) packet).packetId();
                sent.add("PUBREL " + packetId);
                session.complete(packetId);
            }
        }
        while (session.queuedCount() > 0) {
            var drained = new ArrayList<Publish>();
            session.drain(2, now, drained::add);
            if (drained.isEmpty()) throw new AssertionError("nothing drained with " + session.queuedCount() + " queued");
            for (var publish : drained) {
                sent.add(publish.qos() + " " + publish.payload().asUtf8());
                settle(session, publish);
            }
        }
        return sent;
    }

    /** The client acknowledges: PUBACK, or PUBREC and then PUBCOMP. */
    private static void settle(Session session, Publish publish) {
        if (publish.qos() == QoS.AT_LEAST_ONCE) {
            session.acknowledge(publish.packetId());
        } else if (publish.qos() == QoS.EXACTLY_ONCE) {
            session.received(publish.packetId());
            session.complete(publish.packetId());
        }
    }
}
