package io.pekquitto.e2e.retain;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A new subscriber gets every retained message its filter matches, however many: they are paced by its
 * socket, never dropped as live QoS 0 messages are past 1 MiB waiting for a socket (before, 20,000
 * retained messages of about 100 bytes came to 12,280, or fewer: the rest were dropped as the backlog
 * filled; Mosquitto 2.1.2 delivers all 20,000).
 */
class ManyRetainedIT {
    private static final int RETAINED = 20_000;
    private static final Duration ALL_WITHIN = Duration.ofSeconds(60);
    /** No message for this long: the rest are not coming. */
    private static final Duration QUIET = Duration.ofSeconds(5);

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    @Test
    @Timeout(120)
    @DisplayName("[MQTT-3.3.1-9] a subscriber to prefix/# over 20,000 retained QoS 0 messages gets all 20,000")
    void everyRetainedMessageReachesANewSubscriber() throws Exception {
        var prefix = Names.topic("many");
        var payload = "p".repeat(80).getBytes(StandardCharsets.UTF_8);
        try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            var all = new ByteArrayOutputStream();
            for (int n = 0; n < RETAINED; n++) all.write(RawClient.publish(V5, prefix + "/" + n, 0, true, 0, new byte[0], payload));
            all.write(RawClient.publish(V5, prefix + "-done", 1, false, 1, new byte[0], payload));
            publisher.send(all.toByteArray());
            publisher.expect(PUBACK, Duration.ofSeconds(30));  // after the 20,000 before it: all retained now
        }
        try (var subscriber = broker.paho(V5, Names.clientId("sub"))) {
            subscriber.subscribe(prefix + "/#", 0);
            var topics = new HashSet<String>();
            long deadline = System.nanoTime() + ALL_WITHIN.toNanos();
            while (topics.size() < RETAINED && System.nanoTime() < deadline) {
                var message = subscriber.inbox().poll(QUIET);
                if (message == null) break;  // nothing more is coming
                topics.add(message.topic());
            }
            if (topics.size() < RETAINED) fail("only " + topics.size() + " of " + RETAINED + " retained messages within " + ALL_WITHIN + " (none for " + QUIET + " at the end)");
            assertEquals(RETAINED, topics.size());
        }
    }
}
