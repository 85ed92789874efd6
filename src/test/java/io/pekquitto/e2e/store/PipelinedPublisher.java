package io.pekquitto.e2e.store;

import static io.pekquitto.e2e.RawClient.PUBCOMP;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.PUBREL;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.RawClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A publisher that keeps up to {@code window} QoS 1 or QoS 2 PUBLISHes in flight (at most the broker's
 * Receive Maximum, 20 by default), message {@code i}
 * with payload {@code "i"} and packet identifier {@code i + 1}, and records which ones the broker
 * acknowledged (PUBACK, or PUBREC for QoS 2, whose PUBREL it sends at once) until the connection
 * ends, as it does when the broker is killed: what the broker promised to keep.
 */
final class PipelinedPublisher implements AutoCloseable {
    private final RawClient client;
    private final Set<Integer> acknowledged = new ConcurrentSkipListSet<>();
    private final Set<Integer> completed = new ConcurrentSkipListSet<>();
    private final Semaphore window;
    private final Thread writer;
    private final Thread reader;
    private volatile String refusal = "";

    private PipelinedPublisher(RawClient client, String topic, int qos, int count, int windowSize) {
        this.client = client;
        this.window = new Semaphore(windowSize);
        this.reader = new Thread(() -> {
            try {
                while (true) {
                    var packet = client.readOrClosed(Duration.ofSeconds(60));
                    if (packet.isEmpty()) return;
                    if (packet.get().type() == RawClient.DISCONNECT) {
                        refusal = packet.get().toString();
                        return;
                    }
                    int index = packet.get().packetId() - 1;
                    if (packet.get().type() == PUBREC) {
                        acknowledged.add(index);
                        client.send(RawClient.ack(PUBREL, index + 1));
                    } else if (packet.get().type() == PUBCOMP) {
                        completed.add(index);
                        window.release();
                    } else {
                        acknowledged.add(index);
                        window.release();
                    }
                }
            } catch (IOException | AssertionError e) {
                // Closed by the kill, inside a packet perhaps.
            }
        }, "publisher-reader");
        this.writer = new Thread(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    while (!window.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                        if (!reader.isAlive()) return;  // the connection ended
                    }
                    client.send(RawClient.publish(V5, topic, qos, i + 1, Integer.toString(i)));
                }
            } catch (IOException | InterruptedException e) {
                // The broker was killed: the test knows.
            }
        }, "publisher-writer");
    }

    /** Connects a fresh client and starts publishing {@code count} messages to {@code topic}. */
    static PipelinedPublisher start(int port, String clientId, String topic, int qos, int count, int window) throws IOException {
        var client = RawClient.connected(port, RawClient.Connect.of(V5, clientId));
        var publisher = new PipelinedPublisher(client, topic, qos, count, window);
        publisher.writer.start();
        publisher.reader.start();
        return publisher;
    }

    /** Waits until at least {@code count} messages are acknowledged; fails if that takes longer than {@code timeout}. */
    void awaitAcknowledged(int count, Duration timeout) throws InterruptedException {
        Supplier<String> what = () -> count + " acknowledged, not " + acknowledged.size() + "; the broker ended the connection? " + refusal;
        Eventually.await(timeout, what, () -> {
            if (acknowledged.size() < count && !reader.isAlive()) fail(what.get());  // no more will come
            return acknowledged.size() >= count;
        });
    }

    /** Once the connection has ended: the messages the broker acknowledged (PUBACK, or PUBREC for QoS 2). */
    Set<Integer> acknowledgedWhenClosed() throws InterruptedException {
        reader.join(Duration.ofSeconds(60).toMillis());
        writer.join(Duration.ofSeconds(60).toMillis());
        return Set.copyOf(acknowledged);
    }

    Set<Integer> completed() {
        return Set.copyOf(completed);
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
