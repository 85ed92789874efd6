package io.pekquitto.shards.connection;

import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.shards.session.Session;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a connection does with a PUBLISH or a PUBREL from its client once {@link InboundPublish} has
 * judged it: the message goes to the shard to be routed, and the acknowledgement to the client; with
 * a store, only once the shard has written what it acknowledges ({@link OutboundGate}), so a PUBACK
 * is never sent for a message a crash could still lose. A QoS 2 message's packet identifier is
 * journaled as awaiting PUBREL by the shard, in the same batch as the message it routes.
 */
final class PublishIntake {
    private final InboundPublish inbound;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final String clientId;
    private final OutboundGate out;
    private final PacketSource packets;

    PublishIntake(ShardEnvironment environment, Established state, ActorRef<ShardRequest> shard, ConnectionRef self,
                  PacketSource packets) {
        this.inbound = state.inbound;
        this.shard = shard;
        this.self = self;
        this.clientId = state.clientId();
        this.out = state.gate;
        this.packets = packets;
    }

    /** A PUBLISH: routed and acknowledged, or refused; returns the violation that ends the connection, or null. */
    InboundPublish.Violation publish(Publish publish, Session session, long now) {
        var outcome = inbound.receive(publish, session, now);
        if (outcome instanceof InboundPublish.Accepted accepted) {
            packets.routed();
            var ack = accepted.ack();
            if (ack != null && out.isDurable()) {
                out.hold(ack);  // PUBACK / PUBREC once the message is written, and a QoS 2 one's identifier
                int awaitingPubRel = ack instanceof PubRec && session.journal().isKept() ? publish.packetId() : 0;
                shard.tell(new ShardRequest.Route(clientId, accepted.message(), self, awaitingPubRel));
            } else {
                shard.tell(new ShardRequest.Route(clientId, accepted.message()));
                if (ack != null) out.accept(ack);
            }
        } else if (outcome instanceof InboundPublish.AcknowledgedOnly acknowledged) {
            if (acknowledged.ack() != null) out.accept(acknowledged.ack());
        } else if (outcome instanceof InboundPublish.Violation violation) {
            return violation;
        }
        return null;
    }

    /** PUBCOMP; with a store, once the end of the QoS 2 exchange is written, if the session is kept. */
    void pubRel(PubRel pubRel, Session session) {
        var pubComp = inbound.release(pubRel, session);
        if (session.journal().isKept()) {
            out.afterWrite(pubComp);
        } else {
            out.accept(pubComp);
        }
    }
}
