package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.settings.AuthSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ClusterSettings;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.settings.MemorySettings;
import io.pekquitto.shards.settings.OperationsSettings;
import io.pekquitto.shards.settings.ParkingSettings;
import io.pekquitto.shards.settings.Placement;
import io.pekquitto.shards.settings.SettingsReader;
import io.pekquitto.shards.settings.SlowSubscriberPolicy;
import io.pekquitto.shards.settings.StoreSettings;
import io.pekquitto.shards.store.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

    @TempDir
    Path dir;

    private static final String HOCON = """
            shards = 2
            listeners = [
              { host = "127.0.0.1", port = 1884 }
              { port = 8883 }
            ]
            max-packet-size = 65536
            max-keep-alive = 600
            receive-maximum = 10
            max-inflight-messages = 5
            max-queued-messages = 100
            queue-qos0-messages = true
            retain-available = false
            max-qos = 1
            topic-alias-maximum = 0
            max-session-expiry = 1h
            connect-timeout = 3s
            parking { idle-grace = 5s }
            partial-packet-budget = 8MiB
            auth {
              password-file = "/etc/pekquitto/passwd"
              acl = [ "user alice", "topic readwrite home/#" ]
            }
            """;

    private static final String TOML = """
            shards = 2
            max-packet-size = 65536
            max-keep-alive = 600
            receive-maximum = 10
            max-inflight-messages = 5
            max-queued-messages = 100
            queue-qos0-messages = true
            retain-available = false
            max-qos = 1
            topic-alias-maximum = 0
            max-session-expiry = "1h"
            connect-timeout = "3s"

            partial-packet-budget = "8MiB"

            [parking]
            idle-grace = "5s"

            [auth]
            password-file = "/etc/pekquitto/passwd"
            acl = [ "user alice", "topic readwrite home/#" ]

            [[listeners]]
            host = "127.0.0.1"
            port = 1884

            [[listeners]]
            port = 8883
            """;

    private static final String JSON = """
            { "shards": 2,
              "listeners": [ { "host": "127.0.0.1", "port": 1884 }, { "port": 8883 } ],
              "max-packet-size": 65536, "max-keep-alive": 600, "receive-maximum": 10,
              "max-inflight-messages": 5, "max-queued-messages": 100, "queue-qos0-messages": true,
              "retain-available": false, "max-qos": 1, "topic-alias-maximum": 0,
              "max-session-expiry": "1h", "connect-timeout": "3s",
              "parking": { "idle-grace": "5s" }, "partial-packet-budget": "8MiB",
              "auth": { "password-file": "/etc/pekquitto/passwd", "acl": [ "user alice", "topic readwrite home/#" ] } }
            """;

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private static BrokerSettings read(Path file) {
        return SettingsReader.read(ConfigLoader.load(Optional.of(file), new Properties()));
    }

    /** memory.budget and max-queued-bytes left at auto: from this JVM's heap and the partial-packet budget. */
    static MemorySettings autoMemory(int shards, long partialPacketBudget) {
        long budget = MemorySettings.autoBudget(Runtime.getRuntime().maxMemory(), partialPacketBudget);
        return new MemorySettings(budget, MemorySettings.autoShare(budget / shards), Duration.ofSeconds(10));
    }

    @Test
    void hoconTomlAndJsonFilesWithTheSameKeysGiveEqualSettings() throws IOException {
        var expected = new BrokerSettings(2,
                List.of(new ListenerSettings("127.0.0.1", 1884), new ListenerSettings("0.0.0.0", 8883)),
                65536, 600, 10, 5, 100, true, false, 1, 0, Duration.ofHours(1), Duration.ofSeconds(3),
                Placement.ROUND_ROBIN, 0, true, "", SlowSubscriberPolicy.QUEUE,
                new ParkingSettings(true, Duration.ofSeconds(5)), 16_384, 8 << 20,
                new AuthSettings(Optional.of(Path.of("/etc/pekquitto/passwd")), false, Optional.empty(),
                        List.of("user alice", "topic readwrite home/#")),
                new StoreSettings(true, Path.of("data"), Durability.BATCH),  // the runnable broker's default
                true, new OperationsSettings(Duration.ofSeconds(10), Duration.ofSeconds(10),
                        new OperationsSettings.MetricsSettings(false, "127.0.0.1", 9883)),
                autoMemory(2, 8 << 20), ClusterSettings.OFF, List.of());

        assertEquals(expected, read(write("broker.conf", HOCON)));
        assertEquals(expected, read(write("broker.hocon", HOCON)));
        assertEquals(expected, read(write("broker.toml", TOML)));
        assertEquals(expected, read(write("broker.json", JSON)));
    }

    @Test
    void aCopyOfTheReferenceFileWithItsRootWorksToo() throws IOException {
        var settings = read(write("copy.conf", "pekquitto { max-qos = 1 }\npekko { loglevel = DEBUG }\n"));
        assertEquals(1, settings.maxQos());

        var other = assertThrows(ConfigurationException.class,
                () -> read(write("mixed.conf", "pekquitto { max-qos = 1 }\nmax-qos = 2\n")));
        assertTrue(other.getMessage().startsWith("pekquitto.pekquitto is not a known key"), other.getMessage());
    }

    @Test
    void fileOverridesOnlyTheKeysItHolds() throws IOException {
        var settings = read(write("broker.toml", "max-qos = 1\n"));

        assertEquals(1, settings.maxQos());
        assertEquals(20, settings.receiveMaximum());
        assertEquals(List.of(new ListenerSettings("127.0.0.1", 1883)), settings.listeners());
    }

    @Test
    void missingFileIsNamed() {
        var missing = dir.resolve("nope.toml");

        var e = assertThrows(ConfigurationException.class, () -> ConfigFile.parse(missing));

        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void unknownExtensionListsTheAcceptedOnes() throws IOException {
        var yaml = write("broker.yaml", "max-qos: 1\n");

        var e = assertThrows(ConfigurationException.class, () -> ConfigFile.parse(yaml));

        assertTrue(e.getMessage().contains(yaml.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(".conf, .hocon, .json or .toml"), e.getMessage());
    }

    @Test
    void tomlSyntaxErrorNamesTheFileAndLine() throws IOException {
        var toml = write("broker.toml", "shards = 2\nmax-qos = = 1\n");

        var e = assertThrows(ConfigurationException.class, () -> ConfigFile.parse(toml));

        assertTrue(e.getMessage().startsWith(toml + ": 2: "), e.getMessage());
    }

    @Test
    void hoconSyntaxErrorNamesTheFileAndLine() throws IOException {
        var hocon = write("broker.conf", "shards = 2\nmax-qos = }\n");

        var e = assertThrows(ConfigurationException.class, () -> ConfigFile.parse(hocon));

        assertTrue(e.getMessage().contains(hocon + ": 2"), e.getMessage());
    }

    @Test
    void keysArePlacedUnderThePekquittoRoot() throws IOException {
        var config = ConfigFile.parse(write("broker.toml", "max-qos = 1\n"));

        assertEquals(1, config.getInt("pekquitto.max-qos"));
    }
}
