package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Unsubscribe;
import io.pekquitto.shards.session.Session;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a connection asks its shard for on its client's behalf. A PUBLISH or a PUBREL, once
 * {@link InboundPublish} has judged it: the message goes to the shard to be routed, and the
 * acknowledgement to the client; with a store, only once the shard has written what it acknowledges
 * ({@link OutboundGate}), so a PUBACK is never sent for a message a crash could still lose. A QoS 2
 * message's packet identifier is journaled as awaiting PUBREL by the shard, in the same batch as the
 * message it routes. A SUBSCRIBE, once {@link SubscribeChecks} has judged it, and an UNSUBSCRIBE: the
 * shard applies and answers them. The session's Release, with the will, as the connection ends. One per
 * live connection actor: its state is the connection's.
 *
 * <p>A DISCONNECT of the broker's goes out after the acknowledgements held before it ({@link #closeAfterAcks}).
 *
 * <p>What the shard's writes mean for the packets held: written, they go out; failed (the store fails),
 * an MQTT 5 PUBACK or PUBREC goes out refused, with 0x97 Quota exceeded, and anything else ends the
 * connection, so that the client sends it again on a later one. While the store fails, a QoS 1/2 PUBLISH
 * is refused so at once; a 3.1.1 client, which has no refusal codes, is read no more, and its connection
 * ends once what it sent before is acknowledged (README, "When the disk fills").
 */
final class ClientRequests {
    /** How long a DISCONNECT of the broker's waits for the acknowledgements before it (a peer may be unreachable). */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final Established state;
    private final int maxQos;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final PacketSource packets;
    private final ShardEnvironment environment;
    /** A 3.1.1 client's QoS 1/2 PUBLISH came while the store fails: the connection ends once acknowledged. */
    private boolean ending;
    /** The broker ends the connection once what the gate holds has gone out ({@link #closeAfterAcks}). */
    private boolean closing;
    /** The DISCONNECT that goes out then; null for 3.1.1, which has none. */
    private Disconnect disconnect;
    /** Whether the will is published then (not at a shutdown, for a session the store keeps). */
    private boolean publishWill;
    /** A held packet could not be refused ({@link #writesFailed}): nothing held goes out any more. */
    private boolean stuck;

    ClientRequests(ShardEnvironment environment, Established state, ActorRef<ShardRequest> shard, ConnectionRef self,
                  PacketSource packets) {
        this.state = state;
        this.maxQos = environment.settings().maxQos();
        this.environment = environment;
        this.shard = shard;
        this.self = self;
        this.packets = packets;
    }

    /** A PUBLISH: routed and acknowledged, or refused; returns the violation that ends the connection, or null. */
    InboundPublish.Violation publish(Publish publish, Session session, long now) {
        var outcome = state.inbound(environment).receive(publish, session, now);
        if (outcome instanceof InboundPublish.Accepted accepted && accepted.ack() != null && environment.storeFailing()) {
            refuseWhileStoreFails(accepted.ack());
        } else if (outcome instanceof InboundPublish.Accepted accepted) {
            packets.routed();
            var ack = accepted.ack();
            // With a store every acknowledgement waits for the write; without one, a retained message's waits
            // until every shard holds its copy, so that a subscriber anywhere after the PUBACK gets it as retained.
            if (ack != null && state.gate != null && (environment.durableAcks() || accepted.message().retain())) {
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
        } else {
            throw new IllegalStateException("unhandled publish outcome " + outcome);  // a new variant is handled here
        }
        return null;
    }

    /** A QoS 1/2 PUBLISH from an MQTT 5 client while the store fails: not routed, and refused behind what is held. */
    private void refuseWhileStoreFails(Packet ack) {
        environment.storeHealth().refused();
        acknowledge(refusal(ack));
    }

    /** Whether this PUBLISH ends the connection once what came before is acknowledged; nothing more is read. */
    boolean endsConnection(Publish publish) {
        if (state.version.hasProperties() || publish.qos() == QoS.AT_MOST_ONCE || !environment.storeFailing()) return false;
        environment.storeHealth().refused();
        ending = true;
        return true;
    }

    /** The connection reads no more: it ends once acknowledged. */
    boolean isEnding() {
        return ending || closing;
    }

    /**
     * The broker ends the connection with DISCONNECT {@code reason} (none for 3.1.1): the acknowledgements
     * the gate holds of what it accepted go out before it, so a client told 0x93 still gets the PUBRECs of
     * the PUBLISHes it was within its rights to send. True if it ends now: nothing is held, or it was
     * closing already (a takeover, or the wait is over); else nothing more is read until {@link #written}
     * says so. Either way {@link #disconnect()} is what goes out ({@code why} null: no Reason String).
     */
    boolean closeAfterAcks(ReasonCode reason, String why, boolean publishWillThen) {
        var properties = why == null ? Properties.NONE : state.inbound(environment).problem(why);
        disconnect = state.version.hasProperties() ? new Disconnect(reason, properties) : null;
        publishWill = publishWillThen;
        if (closing || stuck || state.gate == null || state.gate.isEmpty()) return true;
        closing = true;
        return false;
    }

    /** The broker's DISCONNECT, once {@link #closeAfterAcks} was called; null for 3.1.1. */
    Disconnect disconnect() {
        return disconnect;
    }

    /** Whether the will is published as the connection ends, once {@link #closeAfterAcks} was called. */
    boolean publishWill() {
        return publishWill;
    }

    /** Closing once what is held has gone out ({@link #closeAfterAcks}). */
    boolean isClosing() {
        return closing;
    }

    /** The writes of the next {@code count} held packets are done; true if the connection must end now. */
    boolean written(int count) {
        if (state.gate != null) state.gate.written(count);
        return isAcknowledged();
    }

    /** The writes of the next {@code count} held packets failed; true if the connection must end now. */
    boolean writesFailed(int count) {
        boolean refused = state.gate == null || state.gate.failed(count, this::refusal);
        stuck |= !refused;
        return !refused || isAcknowledged();
    }

    /** Ending or closing, and nothing held any more. */
    private boolean isAcknowledged() {
        return (ending || closing) && (state.gate == null || state.gate.isEmpty());
    }

    /**
     * An acknowledgement that the store could not write, as a refusal: a PUBACK or PUBREC to an MQTT 5
     * client (a refused QoS 2 message is not awaiting PUBREL); null for any other ({@link OutboundGate#failed}).
     */
    private Packet refusal(Packet ack) {
        if (!state.version.hasProperties() || ack instanceof PubAck refused && refused.reason().isError()) return null;
        var problem = state.inbound(environment).problem(ShardEnvironment.STORE_FAILING);
        if (ack instanceof PubAck pubAck) return new PubAck(pubAck.packetId(), ReasonCode.QUOTA_EXCEEDED, problem);
        if (!(ack instanceof PubRec pubRec) || pubRec.reason().isError()) return null;
        state.window.session().release(pubRec.packetId());
        return new PubRec(pubRec.packetId(), ReasonCode.QUOTA_EXCEEDED, problem);
    }

    /** PUBCOMP; with a store, once the end of the QoS 2 exchange is written, if the session is kept. */
    void pubRel(PubRel pubRel, Session session) {
        var pubComp = state.inbound(environment).release(pubRel, session);
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

    /**
     * The connection ends: its will, if {@code publishWill} and it has one, is routed now or, with a delay,
     * goes with the session back to the shard, which publishes it after the delay or when the session ends,
     * unless the client connects again first (3.1.3.2.2).
     */
    void release(boolean publishWill, long now) {
        var lastWill = LastWill.of(publishWill ? state.will : Optional.empty(), state.version, now);
        lastWill.filter(w -> w.delaySeconds() == 0).ifPresent(w -> shard.tell(new ShardRequest.Route(state.clientId(), w.message())));
        shard.tell(new ShardRequest.Release(state.clientId(), self, state.window.session(), state.sessionExpiryInterval,
                lastWill.filter(w -> w.delaySeconds() > 0)));
    }

    /** A SUBSCRIBE: checked, then applied by the shard; returns the violation that ends the connection, or null. */
    SubscribeChecks.Violation subscribe(Subscribe subscribe) {
        var outcome = SubscribeChecks.check(subscribe, state.version, state.bridge, maxQos, state.acl::canSubscribe);
        if (outcome instanceof SubscribeChecks.Violation violation) return violation;
        var checked = (SubscribeChecks.Checked) outcome;
        shard.tell(new ShardRequest.Subscribe(state.clientId(), subscribe.packetId(), checked.reasons(), checked.requests(), self));
        return null;
    }

    void unsubscribe(Unsubscribe unsubscribe) {
        shard.tell(new ShardRequest.Unsubscribe(state.clientId(), unsubscribe.packetId(), unsubscribe.topicFilters(), self));
    }
}
