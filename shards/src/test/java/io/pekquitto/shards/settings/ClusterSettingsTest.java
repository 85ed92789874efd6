package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.settings.ClusterSettings.DowningStrategy;
import io.pekquitto.shards.settings.ClusterSettings.SeedNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The {@code cluster} section: its defaults, every key read, and each bad value named by its path. */
class ClusterSettingsTest {

    @Test
    void theClusterIsOffByDefault() {
        assertEquals(ClusterSettings.OFF, BrokerSettings.defaults().cluster());
    }

    @Test
    void everyKeyIsRead() {
        var cluster = BrokerSettings.parse("""
                cluster {
                  enabled = true, host = "10.0.0.3", port = 25530, bind-port = 25540
                  seed-nodes = ["10.0.0.1:25520", " node-2.example:25521 ", "[::1]:25522"]
                  downing { strategy = keep-oldest, stable-after = 2s }
                }""").cluster();
        assertEquals(new ClusterSettings(true, "10.0.0.3", 25530, 25540,
                List.of(new SeedNode("10.0.0.1", 25520), new SeedNode("node-2.example", 25521), new SeedNode("::1", 25522)),
                new ClusterSettings.Downing(DowningStrategy.KEEP_OLDEST, Duration.ofSeconds(2))), cluster);
        assertEquals("[::1]:25522", cluster.seedNodes().get(2).toString());
        assertEquals(0, BrokerSettings.parse("cluster.port = 0").cluster().port(), "0 picks a free port");
    }

    @Test
    void seedNodesMayComeFromSystemPropertiesAsListenersDo() {
        var properties = new Properties();
        properties.setProperty("pekquitto.cluster.enabled", "true");
        properties.setProperty("pekquitto.cluster.seed-nodes.0", "127.0.0.1:25521");
        properties.setProperty("pekquitto.cluster.seed-nodes.1", "127.0.0.1:25522");
        var config = ConfigFactory.parseProperties(properties).withFallback(SettingsReader.defaults()).resolve();
        var cluster = SettingsReader.read(config).cluster();
        assertTrue(cluster.enabled());
        assertEquals(List.of(new SeedNode("127.0.0.1", 25521), new SeedNode("127.0.0.1", 25522)), cluster.seedNodes());
    }

    @Test
    void aBadSeedNodeIsNamedWithItsIndexAndValue() {
        for (var bad : List.of("node-1", "node-1:", ":25520", "node-1:port", "node-1:0", "node-1:65536", "::1:25520", "[::1:25520")) {
            var e = assertThrows(ConfigurationException.class,
                    () -> BrokerSettings.parse("cluster.seed-nodes = [\"10.0.0.1:25520\", \"" + bad + "\"]"), bad);
            assertTrue(e.getMessage().startsWith("pekquitto.cluster.seed-nodes[1] must be \"host:port\""), e.getMessage());
            assertTrue(e.getMessage().contains("not \"" + bad + "\""), e.getMessage());
        }
        var notAList = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.seed-nodes = \"a:1\""));
        assertTrue(notAList.getMessage().startsWith("pekquitto.cluster.seed-nodes must be a list of \"host:port\""),
                notAList.getMessage());
    }

    @Test
    void aPortOutOfRangeIsNamed() {
        for (var port : List.of("-1", "65536")) {
            var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.port = " + port));
            assertTrue(e.getMessage().startsWith("pekquitto.cluster.port must be 0..65535, not " + port), e.getMessage());
        }
    }

    @Test
    void anEmptyHostIsNamed() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.host = \" \""));
        assertTrue(e.getMessage().startsWith("pekquitto.cluster.host must name an address"), e.getMessage());
    }

    @Test
    void anUnknownStrategyIsNamedWithTheOnesOffered() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.downing.strategy = static-quorum"));
        assertTrue(e.getMessage().startsWith(
                "pekquitto.cluster.downing.strategy must be keep-majority or keep-oldest, not static-quorum"), e.getMessage());
    }

    @Test
    void stableAfterNeedsAUnitAndMustBePositive() {
        var bare = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.downing.stable-after = 20"));
        assertTrue(bare.getMessage().startsWith("pekquitto.cluster.downing.stable-after needs a unit"), bare.getMessage());
        var zero = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.downing.stable-after = 0s"));
        assertTrue(zero.getMessage().startsWith("pekquitto.cluster.downing.stable-after must be longer than 0s"), zero.getMessage());
    }

    @Test
    void anUnknownKeyIsNamed() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("cluster.seed-node = []"));
        assertTrue(e.getMessage().startsWith("pekquitto.cluster.seed-node is not a known key"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean pekquitto.cluster.seed-nodes?"), e.getMessage());
    }

    @Test
    void aSeedNodeIsParsedOrRefused() {
        assertEquals(Optional.of(new SeedNode("a", 1)), SeedNode.parse("a:1"));
        assertEquals(Optional.empty(), SeedNode.parse("a:123456"));
        assertEquals(Optional.of(DowningStrategy.KEEP_MAJORITY), DowningStrategy.parse("keep-majority"));
        assertEquals(Optional.empty(), DowningStrategy.parse("KEEP_MAJORITY"));
    }
}
