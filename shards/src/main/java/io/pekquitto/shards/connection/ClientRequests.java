package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Unsubscribe;
import io.pekquitto.shards.session.Session;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a connection asks its shard for on its client's behalf. A PUBLISH or a PUBREL, once
 * {@link InboundPublish} has judged it: the message goes to the shard to be routed, and the
 * acknowledgement to the client; with a store, only once the shard has written what it acknowledges
 * ({@link OutboundGate}), so a PUBACK is never sent for a message a crash could still lose. A QoS 2
 * message's packet identifier is journaled as awaiting PUBREL by the shard, in the same batch as the
 * message it routes. A SUBSCRIBE, once {@link SubscribeChecks} has judged it, and an UNSUBSCRIBE: the
 * shard applies and answers them. One per live connection actor: its state is the connection's.
 */
final class ClientRequests {
    private final Established state;
    private final int maxQos;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final PacketSource packets;
    private final boolean durableAcks;

    ClientRequests(ShardEnvironment environment, Established state, ActorRef<ShardRequest> shard, ConnectionRef self,
                  PacketSource packets) {
        this.state = state;
        this.maxQos = environment.settings().maxQos();
        this.durableAcks = environment.durableAcks();
        this.shard = shard;
        this.self = self;
        this.packets = packets;
    }

    /** A PUBLISH: routed and acknowledged, or refused; returns the violation that ends the connection, or null. */
    InboundPublish.Violation publish(Publish publish, Session session, long now) {
        var outcome = state.inbound.receive(publish, session, now);
        if (outcome instanceof InboundPublish.Accepted accepted) {
            packets.routed();
            var ack = accepted.ack();
            // With a store every acknowledgement waits for the write; without one, a retained message's waits
            // until every shard holds its copy, so that a subscriber anywhere after the PUBACK gets it as retained.
            if (ack != null && state.gate != null && (durableAcks || accepted.message().retain())) {
                state.gate.hold(ack);  // PUBACK / PUBREC once the message is written, and a QoS 2 one's identifier
                int awaitingPubRel = ack instanceof PubRec && session.journal().isKept() ? publish.packetId() : 0;
                shard.tell(new ShardRequest.Route(state.clientId(), accepted.message(), self, awaitingPubRel));
            } else {
                shard.tell(new ShardRequest.Route(state.clientId(), accepted.message()));
                if (ack != null) acknowledge(ack);
            }
        } else if (outcome instanceof InboundPublish.AcknowledgedOnly acknowledged) {
            if (acknowledged.ack() != null) acknowledge(acknowledged.ack());
        } else if (outcome instanceof InboundPublish.Violation violation) {
            return violation;
        }
        return null;
    }

    /** PUBCOMP; with a store, once the end of the QoS 2 exchange is written, if the session is kept. */
    void pubRel(PubRel pubRel, Session session) {
        var pubComp = state.inbound.release(pubRel, session);
        if (session.journal().isKept()) {
            state.gate.afterWrite(pubComp);  // a kept session means a store, and a gate
        } else {
            acknowledge(pubComp);
        }
    }

    /** An acknowledgement that needs no write: behind those held, if any. */
    private void acknowledge(Packet ack) {
        if (state.gate != null) {
            state.gate.accept(ack);
        } else {
            state.writer.accept(ack);
        }
    }

    /** A SUBSCRIBE: checked, then applied by the shard; returns the violation that ends the connection, or null. */
    SubscribeChecks.Violation subscribe(Subscribe subscribe) {
        var outcome = SubscribeChecks.check(subscribe, state.version, maxQos, state.inbound.acl()::canSubscribe);
        if (outcome instanceof SubscribeChecks.Violation violation) return violation;
        var checked = (SubscribeChecks.Checked) outcome;
        shard.tell(new ShardRequest.Subscribe(state.clientId(), subscribe.packetId(), checked.reasons(), checked.requests(), self));
        return null;
    }

    void unsubscribe(Unsubscribe unsubscribe) {
        shard.tell(new ShardRequest.Unsubscribe(state.clientId(), unsubscribe.packetId(), unsubscribe.topicFilters(), self));
    }
}
