package io.pekquitto.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.V3Client;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A broker without a cluster (the default) loads no class of Pekko Remote, Cluster or Streams, nor of the
 * cluster module, though the runnable jar carries them: -Xlog:class+load of a broker that served a
 * QoS 1 round trip and was stopped names none. Nor, configured in HOCON, Jackson, which reads TOML files.
 */
class ClusterOffIT {

    @Test
    void noRemoteOrClusterClassIsLoaded() throws Exception {
        var classes = Files.createTempFile("pekquitto-classes", ".txt");
        try {
            try (var broker = RunnableJar.start("listeners = [{ host = \"127.0.0.1\", port = 0 }]\nstore.enabled = false",
                    List.of("-Xlog:class+load=info:file=" + classes))) {
                try (var subscriber = V3Client.connect(broker.port(), "off-sub", options -> {});
                     var publisher = V3Client.connect(broker.port(), "off-pub", options -> {})) {
                    subscriber.subscribe("off/alive", 1);
                    publisher.publish("off/alive", "local", 1, false);
                    assertEquals("local", subscriber.inbox().next(Inbox.TIMEOUT).text());
                }
                assertEquals(0, broker.terminate());
            }
            var loaded = Files.readAllLines(classes);
            assertTrue(loaded.stream().anyMatch(line -> line.contains(" org.apache.pekko.actor.ActorSystem ")),
                    "the log lists the classes loaded");
            var cluster = loaded.stream().filter(line -> line.contains(" org.apache.pekko.cluster.")
                    || line.contains(" org.apache.pekko.remote.") || line.contains(" org.apache.pekko.stream.")
                    || line.contains(" io.pekquitto.cluster.")).toList();
            assertEquals(List.of(), cluster);
            var jackson = loaded.stream().filter(line -> line.contains(" com.fasterxml.jackson.")).toList();
            assertEquals(List.of(), jackson, "a HOCON configuration loads no TOML reader");
        } finally {
            Files.deleteIfExists(classes);
        }
    }
}
