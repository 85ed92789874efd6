package io.pekquitto.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A stuck consumer for fanin and fanout ({@code --slow-subscribers}): subscribes on the same filter,
 * then stops reading its socket (a small receive buffer, so the broker's writes block soon) and
 * acknowledges nothing. It counts in neither deliveries nor losses.
 */
final class SlowSubscriber extends Connection {
    /** The socket receive buffer: small, so that the broker's writes block soon. */
    static final int RECEIVE_BUFFER = 4 * 1024;

    private final Bench.Context context;
    private final int index;
    private final String filter;
    private final int qos;
    private final CountDownLatch ready;
    private final Consumer<String> errors;
    private boolean subscribed;

    SlowSubscriber(Bench.Context context, EventLoop loop, int index, String filter, int qos, CountDownLatch ready,
                   Consumer<String> errors) {
        super(loop, context.subscriberAddress(), context.v5(), RECEIVE_BUFFER, 1024);
        this.context = context;
        this.index = index;
        this.filter = filter;
        this.qos = qos;
        this.ready = ready;
        this.errors = errors;
    }

    @Override
    byte[] connectPacket() {
        // Keep-alive 0: it sends nothing after SUBSCRIBE, and should stay connected, only slow.
        return Mqtt.connect(context.clientId("slow" + index), 0, true, v5);
    }

    @Override
    int receiveBufferSize() {
        return RECEIVE_BUFFER;
    }

    @Override
    boolean wantsRead() {
        return !subscribed;
    }

    @Override
    void onConnected() {
        subscribe(filter, qos);
    }

    @Override
    void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) {
        // A PUBLISH read in the same batch as the SUBACK is left unacknowledged, like the rest.
        if (Mqtt.type(header) != Mqtt.SUBACK || subscribed) return;
        if (granted(frame, bodyOffset, bodyLength, filter) < 0) return;
        subscribed = true;
        ready.countDown();
    }

    @Override
    void onFailed(String reason) {
        errors.accept("slow subscriber " + index + ": " + reason);
        if (!subscribed) ready.countDown();
    }
}
