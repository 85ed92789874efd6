package io.pekquitto.e2e.ops;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code $SYS/broker/...} topics: Mosquitto's names, retained, published every {@code sys-interval}
 * with values that move as clients connect and publish; per-shard figures under {@code shards/N}; and
 * {@code $SYS} is the broker's alone.
 */
class SysTopicsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("shards = 2\nsys-interval = 1s");

    /** Marks, among the topics read, that the SUBACK came: live $SYS messages may come before it. */
    private static final String SUBACK_CAME = "(SUBACK)";

    /** Reads $SYS publishes into {@code topics} until {@code done} holds, or fails after {@link #WAIT}. */
    private static void readUntil(RawClient client, Map<String, String> topics, Predicate<Map<String, String>> done) {
        Eventually.await(WAIT, () -> "$SYS to get there: " + topics, () -> {
            if (done.test(topics)) return true;
            var packet = client.readUnlessQuiet(Duration.ofSeconds(3));
            if (packet.isPresent() && packet.get().type() == PUBLISH) {
                var publish = packet.get().publish(V5);
                topics.put(publish.topic(), publish.payloadText());
            } else if (packet.isPresent() && packet.get().type() == SUBACK) {
                topics.put(SUBACK_CAME, "");
            }
            return done.test(topics);
        });
    }

    private static long number(Map<String, String> topics, String topic) {
        var value = topics.get("$SYS/broker/" + topic);
        return value == null ? -1 : Long.parseLong(value);
    }

    @Test
    void aSubscriberToSysGetsMosquittosTopicsAndTheyMoveWithTheLoad() throws IOException {
        try (var watcher = broker.raw(Connect.of(V5, "sys-watcher"))) {
            watcher.send(RawClient.subscribe(V5, 1, new Filter("$SYS/#", 0)));
            var topics = new HashMap<String, String>();
            // The broker may send a live $SYS message matching the subscription before its SUBACK (MQTT 3.8.4).
            readUntil(watcher, topics, seen -> seen.containsKey(SUBACK_CAME));
            // The first values are retained from before this client: read until its own subscription shows.
            readUntil(watcher, topics, seen -> number(seen, "subscriptions/count") >= 1
                    && number(seen, "shards/0/clients/connected") + number(seen, "shards/1/clients/connected") >= 1);

            assertTrue(topics.get("$SYS/broker/version").startsWith("pekquitto "), topics::toString);
            assertTrue(topics.get("$SYS/broker/uptime").endsWith(" seconds"), topics::toString);
            for (var topic : new String[] {"clients/total", "clients/maximum", "clients/disconnected", "clients/expired",
                    "clients/parked", "messages/received", "messages/sent", "bytes/received", "bytes/sent",
                    "publish/messages/received", "publish/messages/sent", "publish/messages/dropped",
                    "subscriptions/count", "retained messages/count", "store/messages/count", "heap/current",
                    "heap/maximum", "mesh/batches", "mesh/qos0-dropped", "shards/0/clients/connected",
                    "shards/1/clients/connected"}) {
                assertTrue(number(topics, topic) >= 0, () -> topic + " in " + topics);
            }
            assertTrue(number(topics, "heap/current") > 0 && number(topics, "subscriptions/count") >= 1, topics::toString);
            long publishesBefore = number(topics, "publish/messages/received");
            long connectedBefore = number(topics, "clients/connected");

            try (var publisher = broker.raw(Connect.of(V311, "sys-publisher"))) {
                for (int i = 1; i <= 5; i++) publisher.send(RawClient.publish(V311, "load/" + i, 1, i, "x"));
                for (int i = 1; i <= 5; i++) publisher.expect(PUBACK);
                readUntil(watcher, topics, seen -> number(seen, "publish/messages/received") >= publishesBefore + 5
                        && number(seen, "clients/connected") == connectedBefore + 1
                        && number(seen, "shards/0/publish/messages/received") + number(seen, "shards/1/publish/messages/received")
                           >= publishesBefore + 5);
            }
        }
    }

    @Test
    void aClientCannotPublishToSys() throws IOException {
        try (var client = broker.raw(Connect.of(V5, "sys-forger"))) {
            client.send(RawClient.publish(V5, "$SYS/broker/version", 1, 7, "forged"));
            var ack = client.expect(PUBACK);
            assertEquals(0x87, ack.body()[2] & 0xFF, "PUBACK Not authorized");
        }
    }

    @Test
    void sysIsNotMatchedByAWildcardAtTheFirstLevel() throws IOException {  // [MQTT-4.7.2-1]
        try (var all = broker.raw(Connect.of(V5, "hash-subscriber"))) {
            all.send(RawClient.subscribe(V5, 1, new Filter("#", 0)));
            all.expect(SUBACK);
            all.expectSilence(Duration.ofMillis(2500));  // two $SYS intervals: nothing of $SYS
        }
    }
}
