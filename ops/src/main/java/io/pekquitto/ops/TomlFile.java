package io.pekquitto.ops;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import io.pekquitto.shards.settings.ConfigurationException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code .toml} configuration file, read by Jackson's TOML reader into the maps, lists and boxed values
 * Typesafe Config takes as they are. A class of its own so that a broker configured in HOCON, the common
 * case, never loads Jackson: its reader and data binding are about 380 classes, 2 MiB of an empty broker's
 * RSS (BENCHMARKS.md, "Footprint of an empty broker").
 */
final class TomlFile {
    private static final TomlMapper TOML = new TomlMapper();

    private TomlFile() {}

    static Config parse(Path file) {
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
