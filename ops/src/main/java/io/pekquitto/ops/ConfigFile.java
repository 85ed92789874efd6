package io.pekquitto.ops;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValueFactory;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The file given with {@code -c}: HOCON ({@code .conf}, {@code .hocon}), JSON ({@code .json}) or TOML
 * ({@code .toml}), holding the keys without the {@code pekquitto} root, or with it as the reference
 * {@code application.conf} does (a copy of it, edited, works; its {@code pekko} block is Pekko's, read
 * from the jar and not from the file). TOML is read by Jackson into a
 * plain map and list tree that Typesafe Config takes as it is, so both syntaxes meet the same checks;
 * every value keeps the file as its origin, so error messages name it.
 */
public final class ConfigFile {

    /** The extensions {@link #parse} accepts, in the order the error message lists them. */
    public static final List<String> EXTENSIONS = List.of(".conf", ".hocon", ".json", ".toml");

    private static final TomlMapper TOML = new TomlMapper();
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
            config = parseToml(file);
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

    private static Config parseToml(Path file) {
        JsonNode tree;
        try {
            tree = TOML.readTree(file.toFile());
        } catch (JacksonException e) {
            var location = e.getLocation();
            var line = location != null && location.getLineNr() > 0 ? ": " + location.getLineNr() : "";
            throw new ConfigurationException(file + line + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigurationException("configuration file " + file + " cannot be read: " + e.getMessage(), e);
        }
        return ConfigValueFactory.fromMap(plainObject(tree), file.toString()).toConfig();
    }

    /** Jackson's tree as the maps, lists and boxed values {@code ConfigValueFactory} accepts. */
    private static Map<String, Object> plainObject(JsonNode object) {
        var map = new LinkedHashMap<String, Object>();
        object.properties().forEach(entry -> map.put(entry.getKey(), plain(entry.getValue())));
        return map;
    }

    private static Object plain(JsonNode node) {
        if (node.isObject()) return plainObject(node);
        if (node.isArray()) {
            var list = new ArrayList<Object>();
            node.forEach(element -> list.add(plain(element)));
            return list;
        }
        if (node.isBoolean()) return node.booleanValue();
        if (node.isIntegralNumber()) return node.canConvertToLong() ? (Object) node.longValue() : node.doubleValue();
        if (node.isNumber()) return node.doubleValue();
        // Strings, and TOML dates and times, which no key takes: the typed read names the key.
        return node.asText();
    }
}
