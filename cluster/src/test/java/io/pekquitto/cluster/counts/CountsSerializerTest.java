package io.pekquitto.cluster.counts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.cluster.ClusterConfig;
import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class CountsSerializerTest {
    private static final ActorTestKit TEST_KIT = ActorTestKit.create("counts", ClusterConfig.serialization()
            .withFallback(ConfigFactory.load()));
    private static final NodeCounts COUNTS = new NodeCounts("pekquitto@10.0.0.1:25520", 3, 2, 7, 1_000, 2_000);

    @AfterAll
    static void stop() {
        TEST_KIT.shutdownTestKit();
    }

    @Test
    void pekkoPicksItAndANodesCountsComeBackEqual() {
        var serialization = SerializationExtension.get(TEST_KIT.system());
        var serializer = serialization.findSerializerFor(COUNTS);
        assertInstanceOf(CountsSerializer.class, serializer);
        var bytes = serialization.serialize(COUNTS).get();
        assertEquals(COUNTS, serialization.deserialize(bytes, CountsSerializer.IDENTIFIER, CountsSerializer.MANIFEST).get());
    }

    @Test
    void bytesCutShortOrLeftOverOrAnUnknownManifestAreRefused() {
        var serializer = new CountsSerializer();
        var bytes = serializer.toBinary(COUNTS);
        assertThrows(NotSerializableException.class, () -> serializer.fromBinary(Arrays.copyOf(bytes, bytes.length - 1), "N"));
        assertThrows(NotSerializableException.class, () -> serializer.fromBinary(Arrays.copyOf(bytes, bytes.length + 1), "N"));
        assertThrows(NotSerializableException.class, () -> serializer.fromBinary(bytes, "X"));
    }

    @Test
    void theTotalsAreTheSumsOfTheNodesCounts() {
        var total = COUNTS.plus(new NodeCounts("pekquitto@10.0.0.2:25520", 4, 1, 1, 10, 20));
        assertEquals(Map.of("cluster/counted-nodes", "2", "cluster/clients/connected", "7", "cluster/sessions", "3",
                "cluster/subscriptions/count", "8", "cluster/messages/received", "1010", "cluster/messages/sent", "2020"),
                ClusterCounts.totals(total, 2));
    }

    @Test
    void eachNodeHasItsTopicsUpWithItsCountsThenGone() {
        assertEquals(Map.of("cluster/node/10.0.0.1:25520/state", "up", "cluster/node/10.0.0.1:25520/clients/connected", "3",
                "cluster/node/10.0.0.1:25520/sessions", "2", "cluster/node/10.0.0.1:25520/subscriptions/count", "7",
                "cluster/node/10.0.0.1:25520/messages/received", "1000", "cluster/node/10.0.0.1:25520/messages/sent", "2000"),
                ClusterCounts.perNode(COUNTS.node(), COUNTS));
        assertEquals(Map.of("cluster/node/10.0.0.1:25520/state", "gone"), ClusterCounts.perNode(COUNTS.node(), null));
    }
}
