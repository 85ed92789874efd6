package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.store.Durability;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The {@code store} section: its defaults, the modes, and a bad value named by its path. */
class StoreSettingsTest {

    @Test
    void theStoreIsOffByDefaultUntilItKeepsEverything() {
        assertEquals(new StoreSettings(false, Path.of("data"), Durability.BATCH), BrokerSettings.defaults().store());
        assertFalse(BrokerSettings.defaults().store().durable());
    }

    @Test
    void theModesAreRead() {
        var fsync = BrokerSettings.parse("store { enabled = true, path = /var/lib/pekquitto, durability = fsync }").store();
        assertEquals(new StoreSettings(true, Path.of("/var/lib/pekquitto"), Durability.FSYNC), fsync);
        assertEquals(500, BrokerSettings.parse("store.queued-in-memory = 500").store().queuedInMemory());
        assertTrue(fsync.durable());
        assertFalse(BrokerSettings.parse("store { enabled = true, durability = none }").store().durable(), "none is memory only");
    }

    @Test
    void aBadModeOrAnEmptyPathIsNamed() {
        var mode = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("store.durability = always"));
        assertTrue(mode.getMessage().startsWith("pekquitto.store.durability must be none, batch or fsync, not always"), mode.getMessage());
        var path = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("store.path = \"\""));
        assertTrue(path.getMessage().startsWith("pekquitto.store.path must name a directory"), path.getMessage());
        var window = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("store.queued-in-memory = 1"));
        assertTrue(window.getMessage().startsWith("pekquitto.store.queued-in-memory must be at least 2, not 1"), window.getMessage());
    }
}
