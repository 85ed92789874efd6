package io.pekquitto.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.pekquitto.cluster.mesh.MeshSerializer;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ClusterSettings;
import io.pekquitto.shards.shard.ShardCommand;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a node's actor system is configured with, read back as Pekko reads it: over Pekko's own reference. */
class ClusterConfigTest {
    private static final ClusterSettings THREE = BrokerSettings.parse("""
            cluster {
              enabled = true, host = "10.0.0.3", port = 25530
              seed-nodes = ["10.0.0.1:25520", "10.0.0.2:25521"]
              downing { strategy = keep-oldest, stable-after = 2s }
            }""").cluster();

    /** As the actor system sees it: ours over everything else, Pekko's reference.conf of every module last. */
    private static com.typesafe.config.Config effective(ClusterSettings settings) {
        return ClusterConfig.of(settings, 1024 * 1024).withFallback(ConfigFactory.load()).resolve();
    }

    @Test
    void theActorSystemIsANodeOnArteryAtTheConfiguredAddress() {
        var config = effective(THREE);
        assertEquals("cluster", config.getString("pekko.actor.provider"));
        assertEquals("tcp", config.getString("pekko.remote.artery.transport"));
        assertEquals("10.0.0.3", config.getString("pekko.remote.artery.canonical.hostname"));
        assertEquals(25530, config.getInt("pekko.remote.artery.canonical.port"));
        assertEquals("10.0.0.3", config.getString("pekko.remote.artery.bind.hostname"));
        assertEquals("", config.getString("pekko.remote.artery.bind.port"), "the canonical port");
    }

    @Test
    void theSeedNodesArePekkoAddressesOfTheBrokersSystem() {
        assertEquals(List.of("pekko://pekquitto@10.0.0.1:25520", "pekko://pekquitto@10.0.0.2:25521"),
                effective(THREE).getStringList("pekko.cluster.seed-nodes"));
        assertEquals("pekko://pekquitto@[::1]:25520", ClusterConfig.address(new ClusterSettings.SeedNode("::1", 25520)));
        var alone = BrokerSettings.parse("cluster.enabled = true").cluster();
        assertEquals(List.of(), effective(alone).getStringList("pekko.cluster.seed-nodes"), "it joins itself");
    }

    @Test
    void aFrameBetweenNodesHoldsABatchOrTheLargestPacketAndTheQueueABurstOfAnnouncements() {
        var config = effective(THREE);
        assertEquals(1024 * 1024 + 64 * 1024, config.getBytes("pekko.remote.artery.advanced.maximum-frame-size"),
                "the default max-packet-size, 1 MiB, and room for the mesh's fields");
        var small = ClusterConfig.of(THREE, 64 * 1024).withFallback(ConfigFactory.load()).resolve();
        assertEquals(512 * 1024, small.getBytes("pekko.remote.artery.advanced.maximum-frame-size"), "two batches' worth");
        var large = ClusterConfig.of(THREE, 16 * 1024 * 1024).withFallback(ConfigFactory.load()).resolve();
        assertEquals(16 * 1024 * 1024 + 64 * 1024, large.getBytes("pekko.remote.artery.advanced.maximum-frame-size"),
                "a 16 MiB publish crosses in one frame");
        assertEquals(262_144, config.getInt("pekko.remote.artery.advanced.outbound-message-queue-size"));
    }

    @Test
    void theSplitBrainResolverDowns() {
        var config = effective(THREE);
        assertEquals("org.apache.pekko.cluster.sbr.SplitBrainResolverProvider", config.getString("pekko.cluster.downing-provider-class"));
        assertEquals("keep-oldest", config.getString("pekko.cluster.split-brain-resolver.active-strategy"));
        assertEquals(Duration.ofSeconds(2), config.getDuration("pekko.cluster.split-brain-resolver.stable-after"));
        assertEquals("keep-majority", effective(BrokerSettings.parse("cluster.enabled = true").cluster())
                .getString("pekko.cluster.split-brain-resolver.active-strategy"));
    }

    @Test
    void whatAProductionNodeNeeds() {
        var config = effective(THREE);
        assertFalse(config.getBoolean("pekko.actor.allow-java-serialization"));
        assertFalse(config.getBoolean("pekko.cluster.jmx.enabled"));
        assertEquals(Duration.ofSeconds(60), config.getDuration("pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes"));
        assertEquals("on", config.getString("pekko.cluster.run-coordinated-shutdown-when-down"));
        // A stopped node leaves first: CoordinatedShutdown runs on terminate, through its cluster phases.
        assertEquals("on", config.getString("pekko.coordinated-shutdown.run-by-actor-system-terminate"));
        assertEquals(List.of("cluster-sharding-shutdown-region"),
                config.getStringList("pekko.coordinated-shutdown.phases.cluster-leave.depends-on"));
        assertEquals(List.of("before-cluster-shutdown"),
                config.getStringList("pekko.coordinated-shutdown.phases.cluster-sharding-shutdown-region.depends-on"),
                "after the broker's own shutdown (service-requests-done): clients are disconnected before the node leaves");
    }

    @Test
    void theMeshsMessagesAreSerializedByOurSerializer() {
        var config = effective(THREE);
        assertEquals(MeshSerializer.class.getName(), config.getString("pekko.actor.serializers.pekquitto-mesh"));
        for (var message : List.of(ShardCommand.Forward.class, ShardCommand.ForwardAck.class, ShardCommand.Control.class)) {
            assertEquals("pekquitto-mesh", config.getString("pekko.actor.serialization-bindings." + ConfigUtil.quoteString(message.getName())),
                    message.getName());
        }
        assertFalse(config.getBoolean("pekko.actor.allow-java-serialization"));
    }
}
