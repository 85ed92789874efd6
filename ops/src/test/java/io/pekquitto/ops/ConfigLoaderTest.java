package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.settings.AuthSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ClusterSettings;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.ListenerSettings;
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

class ConfigLoaderTest {

    @TempDir
    Path dir;

    /** System properties for one test, so the JVM's own stay untouched. */
    private static Properties systemProperties(String... namesAndValues) {
        var properties = new Properties();
        for (int i = 0; i < namesAndValues.length; i += 2) properties.setProperty(namesAndValues[i], namesAndValues[i + 1]);
        return properties;
    }

    private static BrokerSettings read(Optional<Path> file, Properties systemProperties) {
        return SettingsReader.read(ConfigLoader.load(file, systemProperties));
    }

    private static BrokerSettings documentedDefaults(boolean storeEnabled) {
        int shards = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);  // shards = auto
        return new BrokerSettings(shards, List.of(new ListenerSettings("127.0.0.1", 1883)), 1_048_576, 65_535,
                20, 20, 1000, false, true, 2, 10, Duration.ofSeconds(4_294_967_295L), Duration.ofSeconds(10),
                Placement.ROUND_ROBIN, 0, true, "", SlowSubscriberPolicy.QUEUE,
                new ParkingSettings(true, Duration.ofSeconds(30)), 16_384, Runtime.getRuntime().maxMemory() / 4,
                new AuthSettings(Optional.empty(), true, Optional.empty(), List.of()),
                new StoreSettings(storeEnabled, Path.of("data"), Durability.BATCH), true,
                new OperationsSettings(Duration.ofSeconds(10), Duration.ofSeconds(10),
                        new OperationsSettings.MetricsSettings(false, "127.0.0.1", 9883)),
                ConfigFileTest.autoMemory(shards, Runtime.getRuntime().maxMemory() / 4), ClusterSettings.OFF, List.of());
    }

    @Test
    void defaultsAreTheDocumentedValues() {
        assertEquals(documentedDefaults(true), read(Optional.empty(), systemProperties()),
                "the runnable broker keeps its state in ./data");
        assertEquals(documentedDefaults(false), BrokerSettings.defaults(), "an embedded broker keeps nothing unless asked");
    }

    @Test
    void theRunnableBrokersStoreCanBeSwitchedOff() {
        assertFalse(read(Optional.empty(), systemProperties("pekquitto.store.enabled", "false")).store().enabled());
    }

    @Test
    void systemPropertyOverridesTheDefault() {
        var settings = read(Optional.empty(), systemProperties("pekquitto.max-qos", "1", "pekquitto.connect-timeout", "2s"));

        assertEquals(1, settings.maxQos());
        assertEquals(Duration.ofSeconds(2), settings.connectTimeout());
    }

    @Test
    void systemPropertyWinsOverTheFile() throws IOException {
        var file = Files.writeString(dir.resolve("broker.toml"), "max-qos = 0\nreceive-maximum = 5\n");

        var settings = read(Optional.of(file), systemProperties("pekquitto.max-qos", "1"));

        assertEquals(1, settings.maxQos());
        assertEquals(5, settings.receiveMaximum());
    }

    @Test
    void systemPropertySetsAListenerByIndex() {
        var settings = read(Optional.empty(), systemProperties("pekquitto.listeners.0.port", "8883"));

        assertEquals(List.of(new ListenerSettings("0.0.0.0", 8883)), settings.listeners());
    }

    @Test
    void unknownSystemPropertyIsNamedAsOne() {
        var e = assertThrows(ConfigurationException.class,
                () -> read(Optional.empty(), systemProperties("pekquitto.max-qoss", "1")));

        assertTrue(e.getMessage().startsWith("pekquitto.max-qoss is not a known key (system property)"), e.getMessage());
        assertTrue(e.getMessage().endsWith("did you mean pekquitto.max-qos?"), e.getMessage());
    }

    @Test
    void wrongTypeFromASystemPropertyNamesThePathAndOrigin() {
        var e = assertThrows(ConfigurationException.class,
                () -> read(Optional.empty(), systemProperties("pekquitto.max-qos", "two")));

        assertTrue(e.getMessage().contains("pekquitto.max-qos"), e.getMessage());
        assertTrue(e.getMessage().contains("system property"), e.getMessage());
    }

    @Test
    void otherSystemPropertiesAreNotOurs() {
        var settings = read(Optional.empty(),
                systemProperties("pekko.loglevel", "DEBUG", "pekquittox", "1", "java.vendor", "x"));

        assertEquals(read(Optional.empty(), systemProperties()), settings);
    }

    @Test
    void actorSystemLogsThroughSlf4jOnly() {
        var config = ConfigLoader.actorSystemConfig();

        assertEquals(List.of("org.apache.pekko.event.slf4j.Slf4jLogger"), config.getStringList("pekko.loggers"));
        assertEquals("org.apache.pekko.event.slf4j.Slf4jLoggingFilter", config.getString("pekko.logging-filter"));
        assertEquals("OFF", config.getString("pekko.stdout-loglevel"));
    }

    @Test
    void aRealSystemPropertyOnAListenerFieldIsAppliedNotFatal() {
        // Typesafe's defaultReference() applies real system properties: a listener element override
        // there once turned the default listener list into an object (ClassCastException at start).
        System.setProperty("pekquitto.listeners.0.host", "127.0.0.1");
        ConfigFactory.invalidateCaches();  // Typesafe caches what it read of the system properties
        try {
            var settings = read(Optional.empty(), System.getProperties());
            assertEquals(List.of(new ListenerSettings("127.0.0.1", 1883)), settings.listeners());
        } finally {
            System.clearProperty("pekquitto.listeners.0.host");
            ConfigFactory.invalidateCaches();
        }
    }
}
