package io.pekquitto.shards.connection;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.shards.session.Message;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What the shard sends a live connection's client, through its {@link DeliveryWindow}: a batch of
 * deliveries and then what the window has room for of the session's queue, in one socket write; and a
 * SUBACK, then the retained messages its SUBSCRIBE brought ([MQTT-3.3.1-9]).
 *
 * <p>Retained messages go as fast as the client's socket takes them, and are never dropped: not past the
 * socket's backlog nor the memory budget, as a live QoS 0 message would be (a new subscriber to 20,000
 * retained messages gets 20,000, as from Mosquitto). At most {@link #PACE} bytes wait for the socket at a
 * time; the rest wait here as messages, which the retained index holds anyway, until the transport says
 * it took what was written ({@link Transport#tellWhenTaken}). A QoS 1/2 one waits while the session's
 * queue holds any, so the queue's limit never drops it either: the client's acknowledgements make room.
 * Live deliveries do not wait behind them.
 */
final class Deliveries {
    /** Bytes waiting for the socket past which the next retained message waits: a pipeline, well below the QoS 0 limit. */
    static final long PACE = DeliveryWindow.OUTBOUND_QOS0_LIMIT / 4;

    private final DeliveryWindow window;
    private final PacketWriter writer;
    private final Transport transport;
    private final SlowClient slow;
    private final LongSupplier clock;
    /** Retained messages still to send; null when none, as for most connections most of the time. */
    private ArrayDeque<Message> retained;

    Deliveries(Established state, SlowClient slow, LongSupplier clock) {
        this.window = state.window;
        this.writer = state.writer;
        this.transport = state.transport;
        this.slow = slow;
        this.clock = clock;
    }

    /** The messages through the window, then what it has room for of the queue, in one socket write. */
    void deliver(List<Message> messages) {
        long now = clock.getAsLong();
        writer.cork();
        for (var message : messages) slow.congestion(window.deliver(message, now, writer.backlog()));
        slow.congestion(window.drain(now));
        writer.uncork();
    }

    /** The SUBACK; its retained messages follow as the socket takes them ({@link #sendRetained}). */
    void subscribed(SubAck subAck, List<Message> retainedMessages) {
        writer.cork();
        writer.accept(subAck);
        if (!retainedMessages.isEmpty()) {
            if (retained == null) retained = new ArrayDeque<>(retainedMessages.size());
            retained.addAll(retainedMessages);
        }
        deliver(List.of());
    }

    /**
     * After an event: the retained messages the socket has room for, in one write; the rest wait for the
     * transport to take it, or for the client's acknowledgements.
     */
    void sendRetained() {
        if (retained == null) return;
        long now = clock.getAsLong();
        writer.cork();
        boolean forTheSocket = false;
        while (!retained.isEmpty()) {
            if (writer.backlog() >= PACE) {
                forTheSocket = true;
                break;
            }
            if (retained.peek().qos() != QoS.AT_MOST_ONCE && window.session().queuedCount() > 0) break;
            slow.congestion(window.deliverRetained(retained.poll(), now));
        }
        writer.uncork();
        if (retained.isEmpty()) retained = null;
        if (forTheSocket) transport.tellWhenTaken();
    }

    /** No retained message waits: the connection may park. */
    boolean isQuiet() {
        return retained == null;
    }
}
