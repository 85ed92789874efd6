package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;

/** The Application Messages a Paho client received, in arrival order, with deadlines on every wait. */
public final class Inbox {

    /** How long a wait for a message lasts when a test does not say. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** How long to watch for a message that must not come (nothing else orders it after a known event). */
    public static final Duration QUIET = Duration.ofMillis(300);

    /** One received message; {@code properties} is empty for MQTT 3.1.1. */
    public record Message(String topic, byte[] payload, int qos, boolean retained, boolean duplicate,
                          MqttProperties properties) {
        public String text() { return new String(payload, StandardCharsets.UTF_8); }

        @Override
        public String toString() {
            return "Message[" + topic + " '" + text() + "' qos=" + qos + " retained=" + retained + "]";
        }
    }

    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();

    void add(Message message) {
        messages.add(message);
    }

    /** The next message within {@link #TIMEOUT}. */
    public Message next() throws InterruptedException {
        return next(TIMEOUT);
    }

    public Message next(Duration timeout) throws InterruptedException {
        var message = messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null) fail("no message within " + timeout);
        return message;
    }

    /** The next message within the timeout, or null if none came. */
    public Message poll(Duration timeout) throws InterruptedException {
        return messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The next {@code count} messages, all within the timeout. */
    public List<Message> next(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        var received = new ArrayList<Message>(count);
        while (received.size() < count) {
            long left = deadline - System.nanoTime();
            var message = left > 0 ? messages.poll(left, TimeUnit.NANOSECONDS) : null;
            if (message == null) fail("only " + received.size() + " of " + count + " messages within " + timeout + ": " + received);
            received.add(message);
        }
        return received;
    }

    /**
     * Drops what arrives up to and including the first message with {@code text}; fails if none comes within
     * the timeout. A publisher's last probe, at QoS 1 after its others, drains them all: one path keeps their order.
     */
    public void dropThrough(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        var dropped = new ArrayList<Message>();
        while (true) {
            long left = deadline - System.nanoTime();
            var message = left > 0 ? messages.poll(left, TimeUnit.NANOSECONDS) : null;
            if (message == null) fail("no message \"" + text + "\" within " + timeout + "; dropped meanwhile: " + dropped);
            if (message.text().equals(text)) return;
            dropped.add(message);
        }
    }

    /** Every message that arrives within the window (at most 10,000). */
    public List<Message> within(Duration window) throws InterruptedException {
        long deadline = System.nanoTime() + window.toNanos();
        var received = new ArrayList<Message>();
        for (long left = window.toNanos(); left > 0 && received.size() < 10_000; left = deadline - System.nanoTime()) {
            var message = messages.poll(left, TimeUnit.NANOSECONDS);
            if (message != null) received.add(message);
        }
        return received;
    }

    /** Asserts that no message arrives within the window. */
    public void expectNothing(Duration window) throws InterruptedException {
        var message = messages.poll(window.toMillis(), TimeUnit.MILLISECONDS);
        if (message != null) fail("expected no message, got " + message);
    }

    public void expectNothing() throws InterruptedException {
        expectNothing(QUIET);
    }

    /** Watches the window and asserts no message arrives on the topic; messages on other topics are dropped. */
    public void expectNothingOn(String topic, Duration window) throws InterruptedException {
        long deadline = System.nanoTime() + window.toNanos();
        for (long left = window.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            var message = messages.poll(left, TimeUnit.NANOSECONDS);
            if (message != null && message.topic().equals(topic)) fail("expected no message on " + topic + ", got " + message);
        }
    }
}
