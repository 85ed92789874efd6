package io.pekquitto.e2e.store;

import static io.pekquitto.e2e.store.StoreClients.QUOTA_EXCEEDED;
import static io.pekquitto.e2e.store.StoreClients.persistentSubscriber;
import static io.pekquitto.e2e.store.StoreClients.publish;
import static io.pekquitto.e2e.store.StoreClients.publishUntilAccepted;
import static io.pekquitto.e2e.store.StoreClients.publisher;
import static io.pekquitto.e2e.store.StoreClients.resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.shards.store.SmallFilesystem;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk really fills (issue 24's own account): the runnable jar with its store on an 8 MiB filesystem,
 * a persistent QoS 1 subscriber offline, a publisher of 1 KB QoS 1 messages. Once RocksDB cannot write,
 * every PUBLISH is refused with 0x97 and nothing is acknowledged unwritten; the filesystem grown to
 * 64 MiB, the running broker accepts messages again within 10 s, without a restart, and the subscriber
 * gets every message the broker acknowledged. Needs a tmpfs it may mount (root); skipped elsewhere.
 */
class DiskFullIT {
    private static final int BATCH = 200;
    private static final int SIZE = 1024;

    @TempDir
    Path dir;

    @Test
    @DisplayName("on a full disk the broker refuses, and once it has room is normal again with nothing acknowledged lost")
    void aFullDiskIsRiddenOutWithoutARestart() throws Exception {
        try (var disk = SmallFilesystem.mount(dir.resolve("disk"), 8);
             var broker = RunnableJar.start("""
                     listeners = [{host = "127.0.0.1", port = 0}]
                     shards = 2
                     max-queued-messages = 100000
                     store { enabled = true, path = "%s" }
                     """.formatted(disk.path().resolve("data")))) {
            var topic = Names.topic("disk");
            var offline = Names.clientId("offline");
            persistentSubscriber(broker.port(), offline, topic);
            var publisher = publisher(broker.port());
            var acknowledged = new TreeSet<String>();
            int refused = 0;
            for (int from = 0; refused == 0 && from < 40_000; from += BATCH) {
                var reasons = publish(publisher, topic, "m", from, BATCH, SIZE);
                for (int i = 0; i < BATCH; i++) {
                    if (reasons.get(i) == 0) {
                        acknowledged.add("m-" + (from + i));
                    } else {
                        assertEquals(QUOTA_EXCEEDED, reasons.get(i));
                        refused++;
                    }
                }
            }
            assertTrue(refused > 0, "the disk never filled: " + acknowledged.size() + " acknowledged");
            assertTrue(broker.log().contains("cannot write"), broker.log());
            assertTrue(broker.log().contains("No space left on device"), "the cause is logged: " + broker.log());

            disk.grow(64);
            var recovered = publishUntilAccepted(publisher, topic);
            acknowledged.add("after-0");
            System.out.printf("full disk: %d acknowledged, then %d refused; accepted again %d ms after it had room%n",
                    acknowledged.size() - 1, refused, recovered.toMillis());
            var missing = new TreeSet<>(acknowledged);
            missing.removeAll(resume(broker.port(), offline));
            assertEquals(Set.of(), missing, "acknowledged, and not delivered");
            assertFalse(broker.log().toLowerCase().contains("restart"), "no shard restarted: " + broker.log());
            publisher.disconnect().join();
        }
    }
}
