package io.pekquitto.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * Layers the runnable broker's effective configuration: system properties ({@code -Dpekquitto.KEY=VALUE})
 * over the {@code -c} file over the defaults. The defaults are the root {@code application.conf}, which
 * the shards module packages as {@code pekquitto/application.conf} ({@link SettingsReader#defaults()}),
 * with the one place where a broker started from the command line differs from an embedded one: it
 * keeps its state on disk ({@code store.enabled = true}).
 */
public final class ConfigLoader {

    /** The origin named in messages about values set with {@code -D}. */
    static final String SYSTEM_PROPERTY = "system property";

    /** Where the runnable broker's defaults differ from an embedded broker's (application.conf says why). */
    private static final Config RUNNABLE_DEFAULTS = ConfigFactory.parseString(SettingsReader.ROOT + ".store.enabled = true",
            ConfigParseOptions.defaults().setOriginDescription("the runnable broker's defaults"));

    private ConfigLoader() {}

    /** The effective configuration with this JVM's system properties on top. */
    public static Config load(Optional<Path> file) {
        return load(file, System.getProperties());
    }

    /** The effective configuration with {@code systemProperties} on top (only {@code pekquitto.*} ones count). */
    public static Config load(Optional<Path> file, Properties systemProperties) {
        var fromFile = file.map(ConfigFile::parse).orElse(ConfigFactory.empty());
        try {
            return overrides(systemProperties).withFallback(fromFile).withFallback(RUNNABLE_DEFAULTS)
                    .withFallback(SettingsReader.defaults()).resolve();
        } catch (ConfigException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
    }

    /**
     * The configuration for the broker's own actor system: {@code ConfigFactory.load()} with the
     * {@code pekko} block of the root {@code application.conf} above Pekko's reference. It is needed in
     * the runnable jar: shading appends every {@code reference.conf} into one file with ours first, so
     * there Pekko's own defaults (its stdout logger) would override ours.
     */
    public static Config actorSystemConfig() {
        var loader = ConfigLoader.class.getClassLoader();
        return ConfigFactory.load(loader, ConfigFactory.defaultApplication(loader).withFallback(SettingsReader.defaults()));
    }

    private static Config overrides(Properties systemProperties) {
        // Only our own: other properties (java.*, a `-Dpekko.loglevel` for the actor system) are not ours to check.
        var ours = new Properties();
        for (var name : systemProperties.stringPropertyNames()) {
            if (name.startsWith(SettingsReader.ROOT + ".")) ours.setProperty(name, systemProperties.getProperty(name));
        }
        return ConfigFactory.parseProperties(ours, ConfigParseOptions.defaults().setOriginDescription(SYSTEM_PROPERTY));
    }
}
