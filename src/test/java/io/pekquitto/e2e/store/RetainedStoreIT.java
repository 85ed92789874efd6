package io.pekquitto.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V5Client;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retained messages in the store (issue 10, first step): the runnable broker as a child JVM, killed
 * with SIGKILL or stopped, then started again on the same store; and a store another broker holds.
 */
class RetainedStoreIT {
    @TempDir
    Path store;

    private String configuration() {
        return """
                listeners = [{host = "127.0.0.1", port = 0}]
                store { enabled = true, path = "%s" }
                """.formatted(store.toAbsolutePath());
    }

    /** Publishes each topic's payload retained at QoS 1; returns once every PUBACK is in. */
    private static void publishRetained(int port, List<String> topics) throws Exception {
        try (var publisher = V5Client.connect(port, Names.clientId("pub"), options -> {})) {
            for (var topic : topics) publisher.publish(topic, ("kept " + topic).getBytes(), 1, true);
        }
    }

    private static List<String> retainedUnder(int port, String root, int count) throws Exception {
        try (var subscriber = V5Client.connect(port, Names.clientId("sub"), options -> {})) {
            subscriber.subscribe(root + "/#", 1);
            var messages = subscriber.inbox().next(count, java.time.Duration.ofSeconds(10));
            subscriber.inbox().expectNothing();
            return messages.stream().map(message -> message.topic() + "=" + message.text()).sorted().toList();
        }
    }

    @Test
    @DisplayName("retained messages whose PUBACK came survive a kill -9, and a removal does too")
    void retainedMessagesSurviveAKill() throws Exception {
        var root = Names.topic("retained");
        var topics = List.of(root + "/a", root + "/b", root + "/c");
        var first = RunnableJar.start(configuration());
        try {
            publishRetained(first.port(), topics);
            try (var remover = V5Client.connect(first.port(), Names.clientId("rm"), options -> {})) {
                remover.publish(root + "/b", new byte[0], 1, true);  // an empty retained payload removes it
            }
        } finally {
            first.kill();
        }
        var second = RunnableJar.start(configuration());
        try {
            assertEquals(List.of(root + "/a=kept " + root + "/a", root + "/c=kept " + root + "/c"), retainedUnder(second.port(), root, 2));
            assertTrue(second.log().contains("0 sessions with 0 messages, 2 retained messages"), second.log());
        } finally {
            second.close();
        }
    }

    @Test
    @DisplayName("a graceful stop and start keeps them too")
    void retainedMessagesSurviveARestart() throws Exception {
        var root = Names.topic("restart");
        try (var first = RunnableJar.start(configuration())) {
            publishRetained(first.port(), List.of(root + "/x"));
        }
        try (var second = RunnableJar.start(configuration())) {
            assertEquals(List.of(root + "/x=kept " + root + "/x"), retainedUnder(second.port(), root, 1));
        }
    }

    @Test
    @DisplayName("a store another broker holds stops the start, naming its path")
    void aLockedStoreStopsTheStart() throws Exception {
        try (var first = RunnableJar.start(configuration())) {
            var refused = assertThrows(AssertionError.class, () -> RunnableJar.start(configuration()).close());
            assertTrue(refused.getMessage().contains("store " + store.toAbsolutePath() + " is locked by another process"),
                    refused.getMessage());
        }
    }

    @Test
    @DisplayName("a corrupt store stops the start, naming its path, rather than starting empty over it")
    void aCorruptStoreStopsTheStart() throws Exception {
        try (var first = RunnableJar.start(configuration())) {
            publishRetained(first.port(), List.of(Names.topic("corrupt") + "/x"));
        }
        try (Stream<Path> files = Files.list(store)) {
            var manifest = files.filter(file -> file.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
            var damaged = Files.readAllBytes(manifest);
            for (int i = 0; i < damaged.length; i += 7) damaged[i] ^= (byte) 0x5a;
            Files.write(manifest, damaged);
        }
        var refused = assertThrows(AssertionError.class, () -> RunnableJar.start(configuration()).close());
        assertTrue(refused.getMessage().contains("store " + store.toAbsolutePath() + " is corrupt"), refused.getMessage());
    }
}
