package io.pekquitto.e2e.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Map;
import java.util.Random;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 24's full heap: {@code bin/pekquitto} with its defaults (heap at most 256 MiB, store on), three
 * clients subscribed at QoS 1 that never read, and a Paho publisher of 3,000 QoS 1 messages of 1 MB. Before
 * the memory budgets the shard's thread ran out of heap after about 200 of them. Now each stuck client holds
 * its share of the budget and the rest is dropped and counted; a new client connects and round-trips QoS 1
 * throughout, no OutOfMemoryError is logged, and the RSS stays bounded.
 */
@Timeout(180)
class FullHeapIT {
    private static final int MESSAGES = 3_000;
    private static final int PAYLOAD = 1_000_000;  // under the default max-packet-size (1 MiB) with its headers
    private static final int STUCK = 3;
    private static final int IN_FLIGHT = 20;
    /** The launcher's -Xmx256m, plus what a JVM with Pekko and RocksDB holds outside its heap. */
    private static final long RSS_BOUND_MIB = 450;

    @Test
    void threeSubscribersThatNeverReadDoNotRunTheBrokerOutOfHeap() throws Exception {
        try (var broker = RunnableJar.startWithLauncher("listeners = [{ host = \"127.0.0.1\", port = 0 }]\nsys-interval = 1s", Map.of())) {
            var stuck = new ArrayList<RawClient>();
            for (int i = 0; i < STUCK; i++) stuck.add(HeapWatch.stuckSubscriber(broker, "stuck-" + i, "big/#", 1));
            var publisher = new MqttAsyncClient("tcp://127.0.0.1:" + broker.port(), "big-publisher", new MemoryPersistence());
            var options = new MqttConnectOptions();
            // The window below bounds what is in flight. Paho's own bound is left far above it: Paho completes a
            // token before it counts the PUBACK out of its in-flight total, on another thread, and on a loaded
            // machine that count lagged more than one behind (32202, "Too many publishes in progress").
            options.setMaxInflight(MESSAGES);
            options.setConnectionTimeout(10);
            publisher.connect(options).waitForCompletion(10_000);
            var payload = new byte[PAYLOAD];
            new Random(24).nextBytes(payload);
            long maxRss = 0;
            var window = new ArrayDeque<IMqttDeliveryToken>();
            for (int i = 1; i <= MESSAGES; i++) {
                if (window.size() == IN_FLIGHT) window.poll().waitForCompletion(30_000);
                window.add(publisher.publish("big/" + (i % 10), payload, 1, false));
                if (i % 500 == 0) {
                    HeapWatch.roundTrip(broker, "probe-" + i);  // the broker serves throughout
                    maxRss = Math.max(maxRss, HeapWatch.rssMiB(broker));
                }
            }
            while (!window.isEmpty()) window.poll().waitForCompletion(30_000);
            publisher.disconnect().waitForCompletion(5_000);
            publisher.close();
            HeapWatch.roundTrip(broker, "probe-after");
            maxRss = Math.max(maxRss, HeapWatch.rssMiB(broker));

            // Every message a stuck client did not get was dropped and counted: dropped + held = all of them.
            var sys = HeapWatch.sys(broker, topics -> topics.getOrDefault("publish/messages/received", 0L) >= MESSAGES
                    && topics.getOrDefault("publish/messages/dropped", 0L) + topics.getOrDefault("store/messages/count", 0L)
                    == (long) STUCK * MESSAGES);
            assertTrue(sys.get("memory/dropped") > 0, sys::toString);
            assertEquals(sys.get("publish/messages/dropped"), sys.get("memory/dropped"), "each drop for the memory budget: " + sys);
            HeapWatch.assertWithinBudget(sys, PAYLOAD);
            assertEquals(0, sys.get("memory/disconnected"), "three stuck clients hold three quarters of the budget: no need");
            HeapWatch.assertNoOutOfMemory(broker);
            assertTrue(maxRss < RSS_BOUND_MIB, "RSS " + maxRss + " MiB");
            for (var client : stuck) client.close();
        }
    }
}
