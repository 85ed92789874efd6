package io.pekquitto.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The file given with {@code -c}: HOCON ({@code .conf}, {@code .hocon}), JSON ({@code .json}) or TOML
 * ({@code .toml}), holding the keys without the {@code pekquitto} root, or with it as the reference
 * {@code application.conf} does (a copy of it, edited, works; its {@code pekko} block is Pekko's, read
 * from the jar and not from the file). TOML is read by {@link TomlFile} into a plain map and list tree
 * that Typesafe Config takes as it is, so both syntaxes meet the same checks; every value keeps the file
 * as its origin, so error messages name it.
 */
public final class ConfigFile {

    /** The extensions {@link #parse} accepts, in the order the error message lists them. */
    public static final List<String> EXTENSIONS = List.of(".conf", ".hocon", ".json", ".toml");

    /** The root of Pekko's own settings, which the reference file also holds. */
    private static final String PEKKO = "pekko";

    private ConfigFile() {}

    /** Reads {@code file} and places its keys under the {@code pekquitto} root. */
    public static Config parse(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigurationException("configuration file " + file + " does not exist or is not a file");
        }
        if (!Files.isReadable(file)) {
            throw new ConfigurationException("configuration file " + file + " cannot be read");
        }
        var name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        Config config;
        if (name.endsWith(".toml")) {
            config = TomlFile.parse(file);
        } else if (name.endsWith(".conf") || name.endsWith(".hocon")) {
            config = parseHocon(file, ConfigSyntax.CONF);
        } else if (name.endsWith(".json")) {
            config = parseHocon(file, ConfigSyntax.JSON);
        } else {
            throw new ConfigurationException("configuration file " + file + " has an unknown extension: use "
                    + String.join(", ", EXTENSIONS.subList(0, EXTENSIONS.size() - 1)) + " or "
                    + EXTENSIONS.get(EXTENSIONS.size() - 1));
        }
        return hasRoot(config) ? config.withOnlyPath(SettingsReader.ROOT) : config.atKey(SettingsReader.ROOT);
    }

    /** Whether a file holds its keys under the {@code pekquitto} root, next to nothing but a {@code pekko} block. */
    private static boolean hasRoot(Config config) {
        var keys = config.root().keySet();
        return keys.contains(SettingsReader.ROOT)
                && config.root().get(SettingsReader.ROOT) instanceof ConfigObject
                && keys.stream().allMatch(key -> key.equals(SettingsReader.ROOT) || key.equals(PEKKO));
    }

    private static Config parseHocon(Path file, ConfigSyntax syntax) {
        var options = ConfigParseOptions.defaults().setSyntax(syntax).setAllowMissing(false);
        try {
            // Resolved on its own, so `${?ENV_VARIABLE}` and references within the file work.
            return ConfigFactory.parseFile(file.toFile(), options).resolve();
        } catch (ConfigException e) {
            throw new ConfigurationException(e.getMessage(), e);
        }
    }
}
