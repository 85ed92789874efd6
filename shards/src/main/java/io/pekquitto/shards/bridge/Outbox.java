package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.settings.BridgeSettings;
import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The local messages a bridge owes its remote, in order: those not yet sent, and those sent at QoS 1/2
 * and not yet acknowledged ({@link OutboundWindow}). Each is acknowledged to the local session only once
 * the remote has it, so what waits here is at most the local session's in-flight window; the rest waits
 * in that session's queue.
 */
final class Outbox {
    /** Where the messages go: the link to the remote. */
    interface Sink {
        boolean isWritable();

        void send(Packet packet);
    }

    private final BridgeSettings bridge;
    private final TopicMapping topics;
    private final OutboundWindow<ReceivedMessage> window;
    private final ArrayDeque<ReceivedMessage> waiting = new ArrayDeque<>();

    Outbox(BridgeSettings bridge, TopicMapping topics) {
        this.bridge = bridge;
        this.topics = topics;
        this.window = new OutboundWindow<>(bridge.maxInflight());
    }

    void add(ReceivedMessage message) {
        waiting.add(message);
    }

    /** Messages owed: waiting and in flight. */
    int size() {
        return waiting.size() + window.size();
    }

    /** An MQTT 5 remote's Receive Maximum. */
    void limitTo(int receiveMaximum) {
        window.limitTo(receiveMaximum);
    }

    /** Sends what waits, in order, while the sink takes writes and the window has room; whether anything went. */
    boolean drain(Sink sink) {
        boolean sent = false;
        while (!waiting.isEmpty() && sink.isWritable()) {
            var message = waiting.peek();
            var mapped = topics.toRemote(message.topic(), message.qos());
            if (mapped.isEmpty()) {  // each subscription's filter is its entry's: not expected
                waiting.poll().acknowledge();
                continue;
            }
            var topic = mapped.get().topic();
            var qos = mapped.get().qos();
            if (qos != QoS.AT_MOST_ONCE && window.isFull()) break;
            var properties = bridge.protocolVersion() == ProtocolVersion.MQTT_5 ? message.properties().toProperties() : Properties.NONE;
            if (qos == QoS.AT_MOST_ONCE) {
                sink.send(new Publish(topic, message.payload(), qos, message.retain(), false, 0, properties));
                waiting.poll().acknowledge();
            } else {
                sink.send(window.send(waiting.poll(), topic, message.payload(), qos, message.retain(), properties));
            }
            sent = true;
        }
        return sent;
    }

    /** A new link: what was in flight goes again, first ({@link OutboundWindow#resend}). */
    void resend(boolean sessionPresent, Sink sink) {
        var done = new ArrayList<ReceivedMessage>();
        window.resend(sessionPresent, done).forEach(sink::send);
        done.forEach(ReceivedMessage::acknowledge);
    }

    /** PUBACK: the message is the remote's. */
    void acknowledged(int packetId) {
        acknowledge(window.acknowledged(packetId));
    }

    /** PUBREC: the PUBREL to send, or null. */
    PubRel received(int packetId) {
        return window.received(packetId);
    }

    /** PUBCOMP, or an acknowledgement with an error reason: done; the message, or null if the id was unknown. */
    ReceivedMessage completed(int packetId) {
        var message = window.completed(packetId);
        acknowledge(message);
        return message;
    }

    private static void acknowledge(ReceivedMessage message) {
        if (message != null) message.acknowledge();
    }
}
