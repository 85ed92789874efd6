package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Packet;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The way out of a connection's acknowledgements and deliveries with a store or several shards. A packet that
 * must not leave before the shard has written something is held: a PUBACK or PUBREC before its message
 * is stored, a PUBCOMP before the end of the exchange is, a new QoS 2 PUBLISH before its packet
 * identifier is, a PUBREL before its PUBREC is (else a crash could make the client see one message
 * twice). Every packet after a held one waits behind it, so acknowledgements keep the order of what
 * they answer ([MQTT-4.6.0-2], [MQTT-4.6.0-3]) and deliveries keep theirs. The shard confirms writes
 * in the order they were asked for ({@link Connection.AcknowledgementsWritten}). Without a store
 * but with several shards, only a retained message's acknowledgement is held: until every shard holds
 * its copy. With one shard and no store there is no gate: everything goes straight to the
 * {@link PacketWriter}.
 */
final class OutboundGate implements Consumer<Packet> {
    /** A held packet, and whether it waits for a write (or only for those ahead of it). */
    private record Held(Packet packet, boolean awaitsWrite) {}

    private final Consumer<Packet> out;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    /** Null until a packet is held: most connections never need it, and idle ones are many. */
    private ArrayDeque<Held> held;
    /** Writes confirmed for held packets not yet at the head. */
    private int confirmed;

    /** @param shard the shard asked for a confirmation ({@link ShardRequest.AwaitWrite}), with {@code self} */
    OutboundGate(Consumer<Packet> out, ActorRef<ShardRequest> shard, ConnectionRef self) {
        this.out = out;
        this.shard = shard;
        this.self = self;
    }

    /**
     * Sends {@code packet} through {@code out} once the shard has written this turn, if {@code out} is a
     * gate; with one shard and no store there is none, and nothing waits.
     */
    static void afterWrite(Consumer<Packet> out, Packet packet) {
        if (out instanceof OutboundGate gate) {
            gate.afterWrite(packet);
        } else {
            out.accept(packet);
        }
    }

    /** A packet that needs no write: out now, or behind those held. */
    @Override
    public void accept(Packet packet) {
        if (held == null || held.isEmpty()) {
            out.accept(packet);
        } else {
            held.add(new Held(packet, false));
        }
    }

    /** A packet that leaves once the shard has written this turn; the shard is asked to confirm it. */
    void afterWrite(Packet packet) {
        hold(packet);
        shard.tell(new ShardRequest.AwaitWrite(self));
    }

    /** A packet that leaves once the shard confirms a write the caller has asked for itself (a Route). */
    void hold(Packet packet) {
        if (held == null) held = new ArrayDeque<>(4);
        held.add(new Held(packet, true));
    }

    /** The shard wrote what the next {@code count} held packets wait for: what may go out now, goes. */
    void written(int count) {
        if (held == null) return;
        confirmed += count;
        while (!held.isEmpty() && (!held.peek().awaitsWrite() || confirmed > 0)) {
            var next = held.poll();
            if (next.awaitsWrite()) confirmed--;
            out.accept(next.packet());
        }
    }

    /**
     * The writes that the next {@code count} held packets wait for failed (the store fails): each goes out
     * as {@code refusal} answers it instead (a PUBACK or PUBREC refused with a reason code), and what
     * waited behind it as before. Returns false at the first that has no refusal (null: a PUBCOMP, a
     * PUBREL, a QoS 2 PUBLISH, any packet to a 3.1.1 client), which stays held with what follows: the
     * connection must end, for the client to send its packets again.
     */
    boolean failed(int count, UnaryOperator<Packet> refusal) {
        if (held == null) return true;
        int left = count;
        while (!held.isEmpty() && (!held.peek().awaitsWrite() || left > 0)) {
            var next = held.peek();
            var packet = next.packet();
            if (next.awaitsWrite()) {
                packet = refusal.apply(packet);
                if (packet == null) return false;
                left--;
            }
            held.poll();
            out.accept(packet);
        }
        return true;
    }

    /** Nothing is held: the connection may park. */
    boolean isEmpty() {
        return held == null || held.isEmpty();
    }
}
