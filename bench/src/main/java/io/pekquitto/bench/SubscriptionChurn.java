package io.pekquitto.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/**
 * One client that subscribes to and unsubscribes from filters no publisher uses, at a steady rate,
 * for as long as the load runs: what does the rest of the broker's routing pay for subscriptions
 * that change elsewhere (a route cache wiped by every SUBSCRIBE, say)? A blocking socket on its own
 * thread, waiting for each SUBACK and UNSUBACK.
 */
final class SubscriptionChurn implements AutoCloseable {
    private final Socket socket;
    private final Thread thread;
    private final String filterPrefix;
    private final long periodNanos;
    private volatile boolean stopped;
    private volatile long changes;
    private volatile String error;

    private SubscriptionChurn(Socket socket, String filterPrefix, int perSecond, boolean v5) {
        this.socket = socket;
        this.filterPrefix = filterPrefix;
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
        this.thread = new Thread(() -> run(v5), "subscription-churn");
        this.thread.setDaemon(true);
    }

    /** Connects and starts changing {@code perSecond} subscriptions a second (each SUBSCRIBE or UNSUBSCRIBE counts). */
    static SubscriptionChurn start(InetSocketAddress address, String runId, int perSecond, boolean v5) throws IOException {
        var socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        socket.connect(address, 10_000);
        var clientId = "churn-" + runId;
        socket.getOutputStream().write(Mqtt.connect(clientId, 0, true, v5));
        Mqtt.expect(socket.getInputStream(), Mqtt.CONNACK, clientId);
        var churn = new SubscriptionChurn(socket, "churn/" + runId + "/", perSecond, v5);
        churn.thread.start();
        return churn;
    }

    private void run(boolean v5) {
        try {
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            long next = System.nanoTime();
            for (int i = 0; !stopped; i++) {
                var filter = filterPrefix + (i % 1_000) + "/+";
                int packetId = (i % 60_000) + 1;
                out.write(Mqtt.subscribe(packetId, filter, 0, v5));
                Mqtt.expect(in, Mqtt.SUBACK, "churn");
                out.write(Mqtt.unsubscribe(packetId, filter, v5));
                Mqtt.expect(in, Mqtt.UNSUBACK, "churn");
                changes += 2;
                next += 2 * periodNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
            }
        } catch (IOException | InterruptedException e) {
            if (!stopped) error = "subscription churn: " + e;
        }
    }

    long changes() {
        return changes;
    }

    /** Why the churn stopped early, or null. */
    String error() {
        return error;
    }

    @Override
    public void close() {
        stopped = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // the churn is over either way
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
