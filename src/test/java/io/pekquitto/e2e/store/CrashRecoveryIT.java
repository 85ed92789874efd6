package io.pekquitto.e2e.store;

import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the broker acknowledged survives a crash (issue 10): the runnable jar as a child JVM in
 * {@code store.durability = batch} with two shards (clients are placed round-robin, so messages cross
 * the mesh), killed with SIGKILL while a publisher streams 5,000 messages,
 * then started again on the same store. A subscriber that resumes its session must get every message
 * whose PUBACK (QoS 1) or PUBREC (QoS 2) the publisher received; QoS 1 may come twice, QoS 2 never.
 */
class CrashRecoveryIT {
    private static final int MESSAGES = 5_000;
    /** The kill comes once this many are acknowledged: mid-stream. */
    private static final int KILL_AFTER = 1_500;
    private static final Duration QUIET = Duration.ofSeconds(3);
    @TempDir
    Path store;

    private String configuration() {
        return configuration("batch");
    }

    /** {@code batch} writes on the shard's thread; {@code fsync} on a writer thread per shard, behind it. */
    private String configuration(String durability) {
        return """
                listeners = [{host = "127.0.0.1", port = 0}]
                shards = 2
                max-queued-messages = 10000
                store { enabled = true, path = "%s", durability = %s }
                """.formatted(store.toAbsolutePath(), durability);
    }

    private static Set<Integer> indexes(Collection<String> payloads) {
        return payloads.stream().map(Integer::valueOf).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Map<String, Long> duplicates(List<String> payloads) {
        return payloads.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
                .entrySet().stream().filter(entry -> entry.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static Set<Integer> missing(Set<Integer> acknowledged, Set<Integer> delivered) {
        var missing = new TreeSet<>(acknowledged);
        missing.removeAll(delivered);
        return missing;
    }

    @ParameterizedTest(name = "durability = {0}")
    @ValueSource(strings = {"batch", "fsync"})
    @DisplayName("QoS 1: every message whose PUBACK came is delivered to the offline subscriber after a kill -9")
    void acknowledgedQos1MessagesSurviveAKill(String durability) throws Exception {
        var topic = Names.topic("crash1");
        var subscriber = new Receiver(Names.clientId("sub"));
        Set<Integer> acknowledged;
        var first = RunnableJar.start(configuration(durability));
        try {
            subscriber.subscribe(first.port(), topic, 1).disconnect();
            try (var publisher = PipelinedPublisher.start(first.port(), Names.clientId("pub"), topic, 1, MESSAGES, 20)) {
                publisher.awaitAcknowledged(KILL_AFTER, Duration.ofSeconds(60));
                first.kill();
                acknowledged = publisher.acknowledgedWhenClosed();
            }
        } finally {
            first.kill();
        }
        var second = RunnableJar.start(configuration(durability));
        try {
            subscriber.assertSessionPresentOnResume(second.port());
            subscriber.receiveUntilQuiet(QUIET);
            subscriber.close();
            var delivered = indexes(subscriber.delivered());
            System.out.printf(durability + ": QoS 1 crash: %d acknowledged before the kill, %d delivered after it, %d duplicates%n",
                    acknowledged.size(), delivered.size(), subscriber.delivered().size() - delivered.size());
            assertTrue(acknowledged.size() >= KILL_AFTER && acknowledged.size() < MESSAGES, "killed mid-stream: " + acknowledged.size());
            assertEquals(Set.of(), missing(acknowledged, delivered), "acknowledged, then lost");
            var recoveryLine = "(?s).*shard \\d recovered from the store in \\d+ ms: 1 sessions with \\d+ messages, 0 retained.*";
            assertTrue(second.log().matches(recoveryLine), second.log());
        } finally {
            second.close();
        }
    }

    @ParameterizedTest(name = "durability = {0}")
    @ValueSource(strings = {"batch", "fsync"})
    @DisplayName("QoS 2: every message whose PUBREC came is delivered once, to an offline and to an online subscriber")
    void acknowledgedQos2MessagesAreDeliveredExactlyOnceAfterAKill(String durability) throws Exception {
        var topic = Names.topic("crash2");
        var offline = new Receiver(Names.clientId("off"));
        var online = new Receiver(Names.clientId("on"));
        Set<Integer> acknowledged;
        var first = RunnableJar.start(configuration(durability));
        try {
            offline.subscribe(first.port(), topic, 2).disconnect();
            online.subscribe(first.port(), topic, 2);
            try (var publisher = PipelinedPublisher.start(first.port(), Names.clientId("pub"), topic, 2, MESSAGES, 20)) {
                // The online subscriber is mid-way through its QoS 2 exchanges when the broker dies.
                var receiving = new Thread(() -> {
                    try {
                        online.receiveUntilQuiet(Duration.ofSeconds(30));
                    } catch (IOException e) {
                        // killed
                    }
                });
                receiving.start();
                publisher.awaitAcknowledged(KILL_AFTER, Duration.ofSeconds(60));
                first.kill();
                acknowledged = publisher.acknowledgedWhenClosed();
                receiving.join();
            }
        } finally {
            first.kill();
        }
        var second = RunnableJar.start(configuration(durability));
        try {
            for (var subscriber : List.of(offline, online)) {
                subscriber.assertSessionPresentOnResume(second.port());
                subscriber.receiveUntilQuiet(QUIET);
                subscriber.close();
            }
            System.out.printf(durability + ": QoS 2 crash: %d acknowledged before the kill; offline subscriber %d delivered, online %d%n",
                    acknowledged.size(), offline.delivered().size(), online.delivered().size());
            assertTrue(acknowledged.size() >= KILL_AFTER && acknowledged.size() < MESSAGES, "killed mid-stream: " + acknowledged.size());
            for (var subscriber : List.of(offline, online)) {
                assertEquals(Map.of(), duplicates(subscriber.delivered()), "QoS 2 delivered twice");
                assertEquals(Set.of(), missing(acknowledged, indexes(subscriber.delivered())), "acknowledged, then lost");
            }
        } finally {
            second.close();
        }
    }

    @Test
    @DisplayName("a graceful stop and start loses nothing and delivers nothing twice")
    void aGracefulRestartKeepsEverything() throws Exception {
        var topic = Names.topic("graceful");
        var subscriber = new Receiver(Names.clientId("sub"));
        Set<Integer> acknowledged;
        try (var first = RunnableJar.start(configuration())) {
            subscriber.subscribe(first.port(), topic, 1).disconnect();
            try (var publisher = PipelinedPublisher.start(first.port(), Names.clientId("pub"), topic, 1, 500, 20)) {
                publisher.awaitAcknowledged(500, Duration.ofSeconds(60));
            }
        }
        try (var second = RunnableJar.start(configuration())) {
            subscriber.assertSessionPresentOnResume(second.port());
            subscriber.receiveUntilQuiet(QUIET);
            subscriber.close();
            assertEquals(500, subscriber.delivered().size());
            assertEquals(500, indexes(subscriber.delivered()).size(), "no duplicate after a graceful stop");
        }
    }

    @Test
    @DisplayName("subscriptions, shared-group memberships, retained messages and a delayed will survive a kill -9")
    void sessionStateSurvivesAKill() throws Exception {
        var root = Names.topic("state");
        var member = new Receiver(Names.clientId("member"));
        var watcher = new Receiver(Names.clientId("watcher"));
        var first = RunnableJar.start(configuration());
        try {
            member.subscribe(first.port(), "$share/g/" + root + "/jobs", 1).disconnect();
            watcher.subscribe(first.port(), root + "/plain/#", 1).disconnect();
            try (var client = RawClient.connected(first.port(), RawClient.Connect.of(V5, Names.clientId("pub")))) {
                client.send(RawClient.publish(V5, root + "/plain/r", 1, true, 1, new byte[0], "kept".getBytes()));
                client.expect(RawClient.PUBACK);
            }
            // A will that waits 3 s, of a session that lasts 60: the broker dies before it is due.
            var willProperties = new RawClient.Bytes().u8(0x18).u32(3).toByteArray();
            var will = new RawClient.Will(root + "/plain/will", "gone".getBytes(), 1, false, willProperties);
            var sixty = new RawClient.Bytes().u8(0x11).u32(60).toByteArray();
            try (var leaving = RawClient.connected(first.port(),
                    RawClient.Connect.of(V5, Names.clientId("will")).withProperties(sixty).withWill(will))) {
                leaving.send(RawClient.disconnect(V5, 0x04));  // Disconnect with Will Message
                leaving.expectClosed(RawClient.TIMEOUT);
            }
            // A QoS 1 round trip on each shard (placed round-robin, two connections in a row meet both): the
            // PUBLISH reaches the shard after the will's turn, whose writes it did before (one probe could miss it).
            for (int shard = 0; shard < 2; shard++) {
                try (var client = RawClient.connected(first.port(), RawClient.Connect.of(V5, Names.clientId("probe")))) {
                    client.send(RawClient.publish(V5, root + "/probe", 1, 1, "p"));
                    client.expect(RawClient.PUBACK);
                }
            }
        } finally {
            first.kill();
        }
        var second = RunnableJar.start(configuration());
        try {
            try (var client = RawClient.connected(second.port(), RawClient.Connect.of(V5, Names.clientId("pub")))) {
                client.send(RawClient.publish(V5, root + "/jobs", 1, 1, "job"), RawClient.publish(V5, root + "/plain/x", 1, 2, "x"));
                client.expect(RawClient.PUBACK);
                client.expect(RawClient.PUBACK);
            }
            member.assertSessionPresentOnResume(second.port());
            member.receiveUntilQuiet(QUIET);
            assertEquals(List.of("job"), member.delivered(), "the shared-group membership came back");
            watcher.assertSessionPresentOnResume(second.port());
            watcher.receive(3);
            assertEquals(Set.of("kept", "x", "gone"), Set.copyOf(watcher.delivered()),
                    "queued before the kill, routed after it, and the will once its delay ran out");
            try (var late = RawClient.connected(second.port(), RawClient.Connect.of(V5, Names.clientId("late")))) {
                late.send(RawClient.subscribe(V5, 1, new RawClient.Filter(root + "/plain/r", 1)));
                late.expect(RawClient.SUBACK);
                assertEquals("kept", late.expect(RawClient.PUBLISH).publish(V5).payloadText(), "the retained message");
            }
        } finally {
            member.close();
            watcher.close();
            second.close();
        }
    }
}
