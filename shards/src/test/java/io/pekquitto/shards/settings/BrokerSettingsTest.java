package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerSettingsTest {

    @Test
    void defaultsAreTheValuesOfTheRootApplicationConf() {
        var defaults = BrokerSettings.defaults();

        assertEquals(Math.max(1, Runtime.getRuntime().availableProcessors() / 2), defaults.shards());  // shards = auto
        assertEquals(List.of(new ListenerSettings("127.0.0.1", 1883)), defaults.listeners(), "loopback only by default");
        assertEquals(1 << 20, defaults.maxPacketSize(), "1 MiB, told to MQTT 5 clients in CONNACK");
        assertEquals(1000, defaults.maxQueuedMessages());
        assertEquals(Duration.ofSeconds(10), defaults.connectTimeout());
        assertEquals(SlowSubscriberPolicy.QUEUE, defaults.slowSubscriberPolicy());
    }

    @Test
    void parseLayersItsKeysOverTheDefaults() {
        var settings = BrokerSettings.parse("""
                shards = 2
                max-queued-messages = 100000
                listeners = [{host = "127.0.0.1", port = 0}]
                """);

        assertEquals(2, settings.shards());
        assertEquals(100_000, settings.maxQueuedMessages());
        assertEquals(List.of(new ListenerSettings("127.0.0.1", 0)), settings.listeners());
        assertEquals(BrokerSettings.defaults().receiveMaximum(), settings.receiveMaximum());
    }

    @Test
    void parseOfNothingIsTheDefaults() {
        assertEquals(BrokerSettings.defaults(), BrokerSettings.parse(""));
    }

    @Test
    void parseNamesTheKeyPathAsTheCommandLineDoes() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("shards = 1\nmax-qos = 3"));

        assertEquals("pekquitto.max-qos must be 0, 1 or 2, not 3 (overrides: 2)", e.getMessage());
    }

    @Test
    void parseRefusesAnUnknownKey() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("max-qoss = 1"));

        assertTrue(e.getMessage().startsWith("pekquitto.max-qoss is not a known key (overrides: 1)"), e.getMessage());
    }

    @Test
    void parseRefusesBrokenSyntax() {
        var e = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("max-qos = }"));

        assertTrue(e.getMessage().startsWith("overrides: 1"), e.getMessage());
    }
}
