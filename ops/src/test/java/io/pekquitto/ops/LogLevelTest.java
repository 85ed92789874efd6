package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code log.level}: checked when read, applied on reload unless {@code -v} or the variable set it. */
class LogLevelTest {

    private static String configured(String level) {
        return LogLevel.configured(ConfigFactory.parseString("pekquitto.log.level = " + level)
                .withFallback(SettingsReader.defaults()));
    }

    @Test
    void theDefaultIsInfoAndAnyCaseIsRead() {
        assertEquals("INFO", LogLevel.configured(SettingsReader.defaults()));
        assertEquals("DEBUG", configured("debug"));
    }

    @Test
    void anUnknownLevelIsRefusedNamingTheKey() {
        var failure = assertThrows(ConfigurationException.class, () -> configured("LOUD"));

        assertTrue(failure.getMessage().startsWith("pekquitto.log.level must be TRACE, DEBUG, INFO, WARN or ERROR, not LOUD ("),
                failure.getMessage());
    }

    @Test
    void aReloadAppliesTheConfiguredLevel() {
        var reloaded = new LogLevel("INFO", Optional.empty()).reloaded("WARN");

        assertEquals("log level WARN", reloaded.describe());
    }

    @Test
    void verboseWinsAtStartAndOnReload() {
        var atStart = LogLevel.atStart(true, "WARN");

        assertEquals("DEBUG", atStart.level());
        assertEquals(atStart, atStart.reloaded("ERROR"));
        assertEquals("log level DEBUG (set by -v, log.level not applied)", atStart.describe());
    }
}
