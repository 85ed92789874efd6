package io.pekquitto.e2e.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V5Client;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flood of CONNECTs with fresh client ids and long Session Expiry Intervals: each makes a persistent
 * session, which the broker keeps after its connection closes. Past the memory budget (each session counts
 * its estimated cost) a new persistent session is refused with CONNACK 0x97 (3 in 3.1.1), while clean and
 * resumed sessions still connect and the broker serves throughout. 100,000 of them, 64 at a time, against
 * {@code bin/pekquitto} with a 128 MiB heap (half the launcher's, so that the budget fills within the run).
 */
@Timeout(180)
class FreshSessionsIT {
    private static final int SESSIONS = 100_000;
    private static final int CONCURRENCY = 64;
    /** MQTT 5: Session Expiry Interval (0x11) of a day. */
    private static final byte[] A_DAY = new Bytes().u8(0x11).u32(86_400).toByteArray();

    /** Connects {@code clientId} with a persistent session and closes at once; the CONNACK's reason (3.1.1: its return code). */
    private static int connectPersistent(int port, String clientId, int version) throws IOException {
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(10_000);
            var connect = version == RawClient.V5
                    ? RawClient.Connect.of(RawClient.V5, clientId).withProperties(A_DAY)
                    : RawClient.Connect.of(RawClient.V311, clientId).withCleanStart(false);  // 3.1.1: Clean Session 0
            var out = socket.getOutputStream();
            out.write(connect.bytes());
            var connAck = socket.getInputStream().readNBytes(4);  // type, length, flags, reason; MQTT 5 properties follow
            if (connAck.length < 4) return -1;
            out.write(RawClient.disconnect(version, 0));
            return connAck[3] & 0xFF;
        }
    }

    @Test
    void freshPersistentSessionsPastTheBudgetAreRefusedAndTheBrokerServesOn() throws Exception {
        var config = "listeners = [{ host = \"127.0.0.1\", port = 0 }]\nsys-interval = 1s\nlog.connection-messages = false";
        try (var broker = RunnableJar.startWithLauncher(config, Map.of("PEKQUITTO_JAVA_OPTS", "-Xmx128m"))) {
            int port = broker.port();
            var answers = new ConcurrentHashMap<String, AtomicInteger>();
            var firstAccepted = new AtomicLong(-1);
            var errors = new AtomicInteger();
            var next = new AtomicInteger();
            var pool = Executors.newFixedThreadPool(CONCURRENCY);
            for (int t = 0; t < CONCURRENCY; t++) {
                pool.execute(() -> {
                    for (int i = next.getAndIncrement(); i < SESSIONS; i = next.getAndIncrement()) {
                        int version = i % 10 == 0 ? RawClient.V311 : RawClient.V5;
                        try {
                            int reason = connectPersistent(port, "fresh-" + i, version);
                            answers.computeIfAbsent((version == RawClient.V5 ? "5:" : "3:") + reason, k -> new AtomicInteger()).incrementAndGet();
                            if (reason == 0) firstAccepted.compareAndSet(-1, i);
                        } catch (IOException e) {
                            errors.incrementAndGet();
                        }
                    }
                });
            }
            pool.shutdown();
            while (!pool.awaitTermination(5, TimeUnit.SECONDS)) HeapWatch.roundTrip(broker, "probe-" + next.get());  // served throughout

            int accepted = count(answers, "5:0") + count(answers, "3:0");
            int refused = count(answers, "5:151") + count(answers, "3:3");  // 0x97 Quota exceeded; 3 Server unavailable
            assertEquals(SESSIONS, accepted + refused + errors.get(), answers::toString);
            assertTrue(errors.get() < SESSIONS / 1000, () -> errors + " connections failed: " + answers);
            assertTrue(accepted > 10_000 && refused > 10_000, answers::toString);
            assertTrue(count(answers, "3:3") > 0, "3.1.1 clients are told Server unavailable: " + answers);

            HeapWatch.roundTrip(broker, "probe-after");  // a clean session still connects
            try (var resumed = V5Client.connect(port, "fresh-" + firstAccepted.get(), options -> {
                options.setCleanStart(false);
                options.setSessionExpiryInterval(86_400L);
            })) {
                assertTrue(resumed.sessionPresent(), "a session kept before the budget filled is resumed");
            }
            var sys = HeapWatch.sys(broker, topics -> topics.get("memory/sessions-refused") >= refused);
            assertEquals(refused, sys.get("memory/sessions-refused"), sys::toString);
            HeapWatch.assertWithinBudget(sys, 0);
            HeapWatch.assertNoOutOfMemory(broker);
        }
    }

    private static int count(Map<String, AtomicInteger> answers, String key) {
        var count = answers.get(key);
        return count == null ? 0 : count.get();
    }
}
