package io.pekquitto.e2e.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thousand slow subscribers of small messages against {@code bin/pekquitto}'s 256 MiB: half subscribed
 * at QoS 0, half at QoS 1 (which never acknowledge), each reading about 2 KB a second through a 4 KiB
 * receive buffer, while a Paho publisher sends 4,000 messages of 1 KB. Before the memory budgets each
 * QoS 0 subscriber could hold 1 MiB waiting for its socket, half a GiB for the five hundred. Now what
 * they hold stays within the budget, the rest is dropped and counted, and the broker serves throughout.
 */
@Timeout(180)
class SlowSubscribersIT {
    private static final int SUBSCRIBERS = 1_000;
    private static final int MESSAGES = 4_000;
    private static final int PAYLOAD = 1_000;
    /** Bytes each subscriber reads per pass of the reader, about ten passes a second. */
    private static final int READ_PER_PASS = 200;
    /**
     * Twice the launcher's -Xmx256m: the heap, and the JVM, Pekko and a thousand sockets' buffers outside it
     * (measured 440 to 480 MiB); without the budgets, 500 QoS 0 subscribers alone could hold 500 MiB of heap.
     */
    private static final long RSS_BOUND_MIB = 512;

    /** A raw 3.1.1 subscriber with a 4 KiB receive buffer, connected and subscribed, which the test reads slowly. */
    private static Socket subscriber(int port, int index) throws IOException {
        var socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(5_000);
        var out = socket.getOutputStream();
        var in = socket.getInputStream();
        out.write(RawClient.Connect.of(RawClient.V311, "slow-" + index).withKeepAlive(0).bytes());
        assertEquals(0, in.readNBytes(4)[3], "CONNACK accepted");  // 0x20 0x02 flags rc
        out.write(RawClient.subscribe(RawClient.V311, 1, new RawClient.Filter("small/#", index % 2)));
        assertEquals(5, in.readNBytes(5).length, "SUBACK");
        return socket;
    }

    @Test
    void aThousandSlowSubscribersHoldNoMoreThanTheBudget() throws Exception {
        try (var broker = RunnableJar.startWithLauncher("listeners = [{ host = \"127.0.0.1\", port = 0 }]\nsys-interval = 1s", Map.of())) {
            var sockets = new ArrayList<Socket>();
            for (int i = 0; i < SUBSCRIBERS; i++) sockets.add(subscriber(broker.port(), i));
            var reading = new AtomicBoolean(true);
            var read = new AtomicLong();
            var reader = new Thread(() -> readSlowly(sockets, reading, read), "slow-readers");
            reader.start();
            long maxRss = 0;
            try (var publisher = V3Client.connect(broker.port(), "small-publisher", options -> {})) {
                var payload = new byte[PAYLOAD];
                for (int i = 1; i <= MESSAGES; i++) {
                    publisher.publish("small/" + (i % 10), payload, 0, false);
                    if (i % 1_000 == 0) {
                        HeapWatch.roundTrip(broker, "probe-" + i);
                        maxRss = Math.max(maxRss, HeapWatch.rssMiB(broker));
                    }
                }
                HeapWatch.roundTrip(broker, "probe-after");
                maxRss = Math.max(maxRss, HeapWatch.rssMiB(broker));
            }
            var sys = HeapWatch.sys(broker, topics -> topics.getOrDefault("publish/messages/received", 0L) >= MESSAGES
                    && topics.getOrDefault("memory/dropped", 0L) > 0);
            reading.set(false);
            reader.join(5_000);
            assertTrue(read.get() > 0, "the subscribers read, slowly");
            HeapWatch.assertWithinBudget(sys, PAYLOAD);
            assertTrue(sys.get("publish/messages/dropped") >= sys.get("memory/dropped"), sys::toString);
            HeapWatch.assertNoOutOfMemory(broker);
            assertTrue(maxRss < RSS_BOUND_MIB, "RSS " + maxRss + " MiB");
            for (var socket : sockets) socket.close();
        }
    }

    /** Each subscriber reads at most {@link #READ_PER_PASS} bytes about ten times a second; none acknowledges. */
    private static void readSlowly(List<Socket> sockets, AtomicBoolean reading, AtomicLong read) {
        var buffer = new byte[READ_PER_PASS];
        try {
            while (reading.get()) {
                long passStarted = System.nanoTime();
                for (var socket : sockets) {
                    var in = socket.getInputStream();
                    int available = in.available();
                    if (available > 0) read.addAndGet(in.read(buffer, 0, Math.min(available, READ_PER_PASS)));
                }
                long left = 100 - (System.nanoTime() - passStarted) / 1_000_000;
                if (left > 0) Thread.sleep(left);
            }
        } catch (IOException | InterruptedException e) {
            // A subscriber the broker disconnected (0x97) or the end of the test: stop reading.
        }
    }
}
