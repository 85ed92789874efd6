package io.pekquitto.e2e.publish;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One subscriber that stops reading its socket must not hold up the others. A stuck subscriber (QoS 1,
 * small receive buffer, never reads after its SUBACK) and a normal one share a topic; a QoS 1 publisher
 * sends 20,000 messages to it. Under the default {@code slow-subscriber-policy = queue} the publisher
 * gets its PUBACKs without a stall and the normal subscriber gets every message; the stuck one's queue
 * fills to {@code max-queued-messages} and the rest are dropped for it. Under {@code throttle} the
 * publisher is held back once the stuck one's queue is half full, for the documented 2 s, and then
 * goes on; the normal subscriber still gets every message. Raw sockets throughout, so the windows are
 * the test's own: the publisher keeps at most the server's Receive Maximum (20) in flight.
 */
class SlowSubscriberIT {
    private static final int MESSAGES = 20_000;
    /** The server's Receive Maximum by default (receive-maximum = 20): QoS 1 PUBLISHes in flight. */
    private static final int IN_FLIGHT = 20;
    /**
     * How far the publisher may run ahead of the normal subscriber. Well under max-queued-messages / 2
     * (500): the normal subscriber's own queue never fills or congests, so a message lost or a stall
     * can only come from the stuck subscriber.
     */
    private static final int MAX_LAG = 300;
    private static final int PAYLOAD_SIZE = 256;
    /** Every read of the test waits at most this long. */
    private static final Duration READ = Duration.ofSeconds(10);
    /** The whole run, publishing and receiving, is bounded by this. */
    private static final Duration RUN = Duration.ofSeconds(60);
    /** The old throttle waited up to 2 s per congestion; under queue no PUBACK may come this late. */
    private static final Duration NO_STALL = Duration.ofMillis(1_500);
    /** max-queued-messages / 2: the stuck subscriber's queue length at which throttle holds publishers. */
    private static final int CONGESTION_HIGH_WATER = 1_000 / 2;

    /** A broker per test: the throttle test has settings of its own. */
    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    @Test
    @Timeout(90)
    @DisplayName("slow-subscriber-policy = queue: a subscriber that stops reading neither stalls the QoS 1 publisher nor costs the other subscriber a message")
    void aStuckSubscriberHoldsNobodyUpUnderQueue() throws Exception {
        var run = publishPastAStuckSubscriber();
        assertTrue(run.longestGap().compareTo(NO_STALL) < 0,
                "the publisher waited " + run.longestGap().toMillis() + " ms for a PUBACK (after " + run.gapAfter()
                        + " PUBACKs); publishers must never wait for one subscriber");
    }

    @Test
    @Timeout(90)
    @BrokerExtension.Overrides("slow-subscriber-policy = throttle")
    @DisplayName("slow-subscriber-policy = throttle: the publisher is held back while the stuck subscriber is congested, then goes on; the other subscriber loses nothing")
    void aStuckSubscriberThrottlesThePublisherForAWhileUnderThrottle() throws Exception {
        var run = publishPastAStuckSubscriber();
        // The stall is the congestion timeout (2 s), minus what was in flight when it began.
        assertTrue(run.longestGap().compareTo(Duration.ofSeconds(1)) >= 0,
                "no stall of 1 s or more: the longest wait for a PUBACK was " + run.longestGap().toMillis() + " ms");
        // It began once the stuck subscriber's queue was half full, not before.
        assertTrue(run.gapAfter() >= CONGESTION_HIGH_WATER - IN_FLIGHT,
                "the stall began after only " + run.gapAfter() + " PUBACKs, before the stuck subscriber could be congested");
    }

    /** The publisher's longest wait for a PUBACK, and how many PUBACKs it had before that wait. */
    private record Run(Duration longestGap, int gapAfter) {}

    /**
     * Subscribes a stuck and a normal subscriber, publishes {@link #MESSAGES} at QoS 1, and asserts that
     * every PUBACK is Success and that the normal subscriber receives every message once, in order
     * ([MQTT-4.6.0-6]: a topic is ordered).
     */
    private Run publishPastAStuckSubscriber() throws Exception {
        String topic = Names.topic("slow");
        try (var stuck = RawClient.open(broker.port(), 4096);
             var normal = broker.raw(Connect.of(V5, Names.clientId("normal")));
             var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            stuck.send(Connect.of(V5, Names.clientId("stuck")).bytes());
            assertEquals(0, stuck.expect(CONNACK).connAckReason());
            stuck.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            assertEquals(List.of(1), stuck.expect(SUBACK).ackReasons(V5));
            // From here on the stuck subscriber reads nothing.

            normal.send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
            assertEquals(List.of(1), normal.expect(SUBACK).ackReasons(V5));
            var lag = new Semaphore(MAX_LAG);
            var receiver = new NormalSubscriber(normal, lag);
            receiver.start();

            long deadline = System.nanoTime() + RUN.toNanos();
            var inFlight = new Semaphore(IN_FLIGHT);
            var sender = new Sender(publisher, topic, inFlight, lag, deadline);
            sender.start();

            long last = System.nanoTime();
            long longestGap = 0;
            int gapAfter = 0;
            for (int acked = 0; acked < MESSAGES; acked++) {
                if (System.nanoTime() > deadline) fail("only " + acked + " PUBACKs within " + RUN);
                var ack = publisher.expect(PUBACK, READ);
                long now = System.nanoTime();
                // 5.0 PUBACK: packet id, then reason code 0x00 unless the remaining length is 2 (3.4.2.1).
                int reason = ack.body().length > 2 ? ack.body()[2] & 0xFF : 0;
                if (reason != 0) fail("PUBACK " + RawClient.hex(reason) + " for message " + acked);
                if (now - last > longestGap) {
                    longestGap = now - last;
                    gapAfter = acked;
                }
                last = now;
                inFlight.release();
            }
            sender.join(READ.toMillis());
            if (sender.failure != null) throw new AssertionError("publishing failed", sender.failure);

            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            if (!receiver.done.await(left, TimeUnit.MILLISECONDS)) {
                fail("the normal subscriber received " + receiver.count() + " of " + MESSAGES + " within " + RUN
                        + (receiver.failure == null ? "" : ": " + receiver.failure));
            }
            assertEquals("", receiver.problems(), "what the normal subscriber received");
            assertEquals(MESSAGES, receiver.distinct(), "distinct messages the normal subscriber received");
            return new Run(Duration.ofNanos(longestGap), gapAfter);
        }
    }

    private static byte[] payload(int sequence) {
        var text = new StringBuilder(String.format("%08d", sequence));
        while (text.length() < PAYLOAD_SIZE) text.append('.');
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static int sequenceOf(byte[] payload) {
        return Integer.parseInt(new String(payload, 0, 8, StandardCharsets.US_ASCII));
    }

    /** Publishes the messages at QoS 1, each once a PUBACK frees a slot and the normal subscriber is not too far behind. */
    private static final class Sender extends Thread {
        private final RawClient publisher;
        private final String topic;
        private final Semaphore inFlight;
        private final Semaphore lag;
        private final long deadline;
        volatile Throwable failure;

        Sender(RawClient publisher, String topic, Semaphore inFlight, Semaphore lag, long deadline) {
            super("slow-subscriber-it-sender");
            setDaemon(true);
            this.publisher = publisher;
            this.topic = topic;
            this.inFlight = inFlight;
            this.lag = lag;
            this.deadline = deadline;
        }

        @Override
        public void run() {
            try {
                for (int i = 0; i < MESSAGES; i++) {
                    acquire(inFlight, "a PUBACK to free a slot");
                    acquire(lag, "the normal subscriber to catch up");
                    int packetId = i % 65_535 + 1;  // at most IN_FLIGHT in use at once: never a duplicate
                    publisher.send(RawClient.publish(V5, topic, 1, false, packetId, new byte[0], payload(i)));
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private void acquire(Semaphore semaphore, String what) throws InterruptedException {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !semaphore.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                throw new AssertionError("publishing stopped: waited for " + what + " past the deadline");
            }
        }
    }

    /** Reads the normal subscriber's PUBLISHes, acknowledges each at once, and checks the sequence. */
    private static final class NormalSubscriber extends Thread {
        private final RawClient client;
        private final Semaphore lag;
        private final BitSet seen = new BitSet(MESSAGES);
        private int received;
        private int next;
        private final StringBuilder problems = new StringBuilder();
        final CountDownLatch done = new CountDownLatch(1);
        volatile Throwable failure;

        NormalSubscriber(RawClient client, Semaphore lag) {
            super("slow-subscriber-it-normal");
            setDaemon(true);
            this.client = client;
            this.lag = lag;
        }

        @Override
        public void run() {
            try {
                while (count() < MESSAGES) {
                    var packet = client.expect(PUBLISH, READ);
                    var publish = packet.publish(V5);
                    client.send(RawClient.ack(PUBACK, publish.packetId()));
                    record(sequenceOf(publish.payload()));
                    lag.release();
                }
                done.countDown();
            } catch (IOException | RuntimeException | AssertionError e) {
                failure = e;
            }
        }

        private synchronized void record(int sequence) {
            received++;
            if (seen.get(sequence)) {
                if (problems.length() < 500) problems.append("duplicate ").append(sequence).append("; ");
            } else if (sequence != next && problems.length() < 500) {
                problems.append("got ").append(sequence).append(" where ").append(next).append(" was next; ");
            }
            seen.set(sequence);
            next = sequence + 1;
        }

        synchronized int count() {
            return received;
        }

        synchronized int distinct() {
            return seen.cardinality();
        }

        synchronized String problems() {
            return problems.toString();
        }
    }
}
