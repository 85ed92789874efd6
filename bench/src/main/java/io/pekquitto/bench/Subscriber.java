package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * A subscriber of fanin and fanout: receives, acknowledges and checks every message, recording per
 * publisher which sequence numbers arrived, so that losses and duplicates are counted exactly.
 */
final class Subscriber extends Connection {
    private static final int BUFFER = 64 * 1024;

    private final Bench.Context context;
    final int index;
    private final String filter;
    private final int qos;
    private final int publisherCount;
    /** Per (subscriber, publisher): the highest sequence received + 1, for --max-lag; null without it. */
    private final AtomicLongArray progress;
    private final CountDownLatch ready;
    private final Consumer<String> errors;
    final BitSet[] seen;
    boolean subscribed;
    long deliveries;
    long unique;
    long duplicates;
    long foreign;
    long lastReceive;
    volatile long uniqueView;

    Subscriber(Bench.Context context, EventLoop loop, int index, String filter, int qos, int publisherCount,
               AtomicLongArray progress, CountDownLatch ready, Consumer<String> errors) {
        super(loop, context.subscriberAddress(), context.v5(), BUFFER, 16 * 1024);
        this.context = context;
        this.index = index;
        this.filter = filter;
        this.qos = qos;
        this.publisherCount = publisherCount;
        this.progress = progress;
        this.ready = ready;
        this.errors = errors;
        this.seen = new BitSet[publisherCount];
        for (int i = 0; i < seen.length; i++) seen[i] = new BitSet(1 << 16);
    }

    @Override
    byte[] connectPacket() {
        if (context.persistentSubscribers()) return Mqtt.connectPersistent(context.clientId("s" + index), context.keepAlive(), v5);
        return Mqtt.connect(context.clientId("s" + index), context.keepAlive(), true, v5);
    }

    @Override
    void onConnected() {
        subscribe(filter, qos);
    }

    @Override
    void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException {
        switch (Mqtt.type(header)) {
            case Mqtt.PUBLISH -> onPublish(header, frame, bodyOffset, bodyLength);
            case Mqtt.PUBREL -> {
                ensureRoom(4);
                Mqtt.putAck(out, Mqtt.PUBCOMP, frame.getShort(bodyOffset) & 0xFFFF);
            }
            case Mqtt.SUBACK -> {
                int code = granted(frame, bodyOffset, bodyLength, filter);
                if (code < 0) return;
                if (code != qos) errors.accept("subscriber " + index + " granted QoS " + code + " instead of " + qos);
                subscribed = true;
                ready.countDown();
            }
            case Mqtt.PINGRESP -> { }
            default -> errors.accept("subscriber " + index + " got unexpected packet type " + Mqtt.type(header));
        }
    }

    private void onPublish(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException {
        int received = Mqtt.qos(header);
        int payloadAt = Mqtt.publishPayloadOffset(frame, bodyOffset, received, v5);
        if (received > 0) {
            int packetId = frame.getShort(bodyOffset + 2 + (frame.getShort(bodyOffset) & 0xFFFF)) & 0xFFFF;
            ensureRoom(4);
            Mqtt.putAck(out, received == 1 ? Mqtt.PUBACK : Mqtt.PUBREC, packetId);
        }
        deliveries++;
        lastReceive = System.nanoTime();
        if (bodyOffset + bodyLength - payloadAt < Mqtt.PublishTemplate.MIN_PAYLOAD) {
            foreign++;
            return;
        }
        int publisher = frame.getInt(payloadAt);
        long sequence = frame.getLong(payloadAt + 4);
        if (publisher < 0 || publisher >= publisherCount || sequence < 0 || sequence > Integer.MAX_VALUE) {
            foreign++;
            return;
        }
        if (progress != null) {
            int slot = index * publisherCount + publisher;
            if (sequence + 1 > progress.get(slot)) progress.lazySet(slot, sequence + 1);
        }
        var bits = seen[publisher];
        if (bits.get((int) sequence)) {
            duplicates++;
        } else {
            bits.set((int) sequence);
            uniqueView = ++unique;
        }
    }

    @Override
    void onFailed(String reason) {
        errors.accept("subscriber " + index + ": " + reason);
        if (!subscribed) ready.countDown();
    }
}
