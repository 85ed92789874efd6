package io.pekquitto.e2e.ops;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RunnableJar;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fatal error ends the broker's process at once (issue 24), so that its supervisor restarts it: a broker
 * whose heap fills, started as an operator starts it, exits with status 3 within 2 s, says on stderr what
 * happened, and runs no graceful shutdown. The heap is filled honestly, by clients: three subscribers
 * that never read and a publisher of large QoS 1 messages, on a small heap, with every limit that would
 * stop them turned off.
 */
@Timeout(120)
class FatalErrorIT {
    /**
     * What lets three clients fill the heap: every limit on the heap the broker spends for clients is off,
     * or larger than the heap. Heap budgets (issue 24) will come with a switch of their own: it goes here.
     */
    private static final String NO_HEAP_LIMITS = """
            memory.budget = 0                 # no memory budget at all (README, "Memory budgets")
            max-queued-bytes = 0              # no per-session byte limit
            max-queued-messages = 1000000     # more messages than the heap holds
            partial-packet-budget = 1GiB      # above the heap: a packet being read is never refused first
            slow-subscriber-policy = queue    # the default: a publisher never waits for a stuck subscriber
            """;
    private static final String CONFIGURATION = """
            listeners = [{ host = "127.0.0.1", port = 0 }]
            shards = 1
            """ + NO_HEAP_LIMITS;
    /** The broker itself holds about 20 MiB of it: a few dozen of the messages below fill the rest. */
    private static final String HEAP = "-Xmx48m";
    /** Under max-packet-size (1 MiB), which stays as it is: no client is refused for its packet's size. */
    private static final int PAYLOAD_BYTES = 512 * 1024;
    private static final int SUBSCRIBERS = 3;
    /** Bounds of the publishing: the heap is full long before either. */
    private static final int MAX_MESSAGES = 1_000;
    private static final Duration MAX_FILLING = Duration.ofSeconds(60);
    /** How long the broker may take to acknowledge a message or close the connection: past it, it lingers. */
    private static final Duration ANSWER = Duration.ofSeconds(10);
    private static final Duration AT_ONCE = Duration.ofSeconds(2);
    private static final Pattern OWN_LINE = Pattern.compile("pekquitto: fatal error on thread \\[pekquitto-[^]]+]: "
            + "java\\.lang\\.OutOfMemoryError: Java heap space; halting \\(exit status 3, no graceful shutdown\\)\n");

    @Test
    void withJavaJarTheBrokersOwnHandlerHaltsWhenTheHeapFills() throws Exception {
        // java -jar has no -XX:+ExitOnOutOfMemoryError: what ends the process is the broker's handler.
        try (var broker = RunnableJar.start(CONFIGURATION, List.of(HEAP))) {
            var end = fillTheHeap(broker);

            assertEquals(3, end.status(), () -> "exit status; " + end);
            assertTrue(OWN_LINE.matcher(end.log()).find(), () -> "the broker's line on stderr; " + end);
            assertFalse(end.log().contains("Uncaught error from thread"), () -> "Pekko's handler ran; " + end);
            assertEndedAtOnce(end);
        }
    }

    @Test
    void withTheLauncherTheJvmExitsAtItsFirstOutOfMemoryError() throws Exception {
        try (var broker = RunnableJar.startWithLauncher(CONFIGURATION, Map.of("PEKQUITTO_JAVA_OPTS", HEAP))) {
            var end = fillTheHeap(broker);

            assertEquals(3, end.status(), () -> "exit status; " + end);
            // -XX:+ExitOnOutOfMemoryError's line, on stderr with -XX:+DisplayVMOutputToStderr.
            assertTrue(end.log().contains("Terminating due to java.lang.OutOfMemoryError: Java heap space\n"),
                    () -> "the JVM's line on stderr; " + end);
            assertEndedAtOnce(end);
        }
    }

    private static void assertEndedAtOnce(End end) {
        assertTrue(end.sinceFirstOutOfMemoryLine().compareTo(AT_ONCE) <= 0,
                () -> "exit more than " + AT_ONCE + " after the first OutOfMemoryError line; " + end);
        assertTrue(end.sinceLastAccepted().compareTo(AT_ONCE) <= 0,
                () -> "exit more than " + AT_ONCE + " after the last PUBACK; " + end);
        // No shutdown hook ran: the broker's graceful shutdown logs this line as it starts.
        assertFalse(end.log().contains("Shutting down"), () -> "a graceful shutdown ran; " + end);
    }

    /**
     * How the broker's process ended: its exit status, and when it exited after the first line on stderr
     * that names an OutOfMemoryError (polled every 10 ms) and after the last message it acknowledged.
     */
    private record End(int status, int accepted, Duration sinceFirstOutOfMemoryLine, Duration sinceLastAccepted,
                       String log) {
        @Override
        public String toString() {
            return "status " + status + ", " + accepted + " messages accepted, exit " + sinceLastAccepted.toMillis()
                    + " ms after the last PUBACK and " + sinceFirstOutOfMemoryLine.toMillis()
                    + " ms after the first OutOfMemoryError line; log:\n" + log;
        }
    }

    /** Subscribers that never read, and a publisher of large QoS 1 messages until the broker's process ends. */
    private static End fillTheHeap(RunnableJar broker) throws Exception {
        var topic = Names.topic("fill");
        var subscribers = new ArrayList<RawClient>();
        try {
            for (int i = 0; i < SUBSCRIBERS; i++) subscribers.add(stuckSubscriber(broker.port(), topic));
            var publisher = new Publisher(broker.port(), topic);
            var publishing = new Thread(publisher, "publisher");
            publishing.start();
            long firstOutOfMemoryLine = 0;
            long deadline = System.nanoTime() + MAX_FILLING.plus(ANSWER).toNanos();
            while (broker.process().isAlive()) {
                if (System.nanoTime() > deadline || publisher.failure.get() != null) {
                    throw new AssertionError("pekquitto still runs; " + publisher + "; log:\n" + broker.log(), publisher.failure.get());
                }
                if (firstOutOfMemoryLine == 0 && broker.log().contains("OutOfMemoryError")) firstOutOfMemoryLine = System.nanoTime();
                Thread.sleep(10);
            }
            long exited = System.nanoTime();
            var log = broker.log();
            if (firstOutOfMemoryLine == 0 && log.contains("OutOfMemoryError")) firstOutOfMemoryLine = exited;
            publishing.join(ANSWER.toMillis());
            if (publisher.failure.get() != null) throw new AssertionError(publisher.toString(), publisher.failure.get());
            if (firstOutOfMemoryLine == 0) fail("no OutOfMemoryError on stderr; " + publisher + "; log:\n" + log);
            return new End(broker.awaitExit(ANSWER), publisher.accepted.get(), Duration.ofNanos(exited - firstOutOfMemoryLine),
                    Duration.ofNanos(exited - publisher.lastAccepted.get()), log);
        } finally {
            for (var subscriber : subscribers) subscriber.close();
        }
    }

    /** Subscribed at QoS 1, with a small receive buffer, and never reads again: everything for it stays in the broker. */
    private static RawClient stuckSubscriber(int port, String topic) throws IOException {
        var subscriber = RawClient.open(port, 4096);
        subscriber.send(Connect.of(V311, Names.clientId("stuck")).bytes());
        subscriber.expect(RawClient.CONNACK);
        subscriber.send(RawClient.subscribe(V311, 1, new Filter(topic, 1)));
        subscriber.expect(SUBACK);
        return subscriber;
    }

    /** Publishes QoS 1 messages one after the other, each once the last is acknowledged, until the connection ends. */
    private static final class Publisher implements Runnable {
        final AtomicInteger accepted = new AtomicInteger();
        final AtomicLong lastAccepted = new AtomicLong(System.nanoTime());
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final int port;
        private final String topic;

        Publisher(int port, String topic) {
            this.port = port;
            this.topic = topic;
        }

        @Override
        public void run() {
            var payload = new byte[PAYLOAD_BYTES];
            long deadline = System.nanoTime() + MAX_FILLING.toNanos();
            try (var client = RawClient.connected(port, Connect.of(V311, Names.clientId("filler")))) {
                for (int id = 1; id <= MAX_MESSAGES && System.nanoTime() < deadline; id++) {
                    Optional<RawClient.Packet> answer;
                    try {
                        client.send(RawClient.publish(V311, topic, 1, false, id, new byte[0], payload));
                        answer = client.readOrClosed(ANSWER);
                    } catch (IOException e) {
                        return;  // the connection was reset: the process is gone
                    } catch (AssertionError e) {
                        throw new AssertionError("message " + id + ": neither a PUBACK nor the connection closed within "
                                + ANSWER + ": the broker lingers", e);
                    }
                    if (answer.isEmpty()) return;
                    if (answer.get().type() != PUBACK) throw new AssertionError("expected a PUBACK, got " + answer.get());
                    lastAccepted.set(System.nanoTime());
                    accepted.incrementAndGet();
                }
            } catch (IOException | RuntimeException | AssertionError e) {
                failure.set(e);
            }
        }

        @Override
        public String toString() {
            return accepted.get() + " messages of " + PAYLOAD_BYTES + " bytes accepted";
        }
    }
}
