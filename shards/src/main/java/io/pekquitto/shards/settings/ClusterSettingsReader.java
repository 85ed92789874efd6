package io.pekquitto.shards.settings;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Reads {@link ClusterSettings} from the {@code pekquitto.cluster} section. */
final class ClusterSettingsReader {
    private ClusterSettingsReader() {}

    static ClusterSettings read(Config config, String path) {
        var host = path + ".host";
        var hostName = SettingsReader.text(config, host).orElseThrow(() -> new ConfigurationException(
                host + " must name an address (" + SettingsReader.origin(config, host) + ")"));
        return new ClusterSettings(config.getBoolean(path + ".enabled"), hostName, port(config, path + ".port"),
                port(config, path + ".bind-port"), seedNodes(config, path + ".seed-nodes"),
                new ClusterSettings.Downing(strategy(config, path + ".downing.strategy"),
                        SettingsReader.positive(config, path + ".downing.stable-after")));
    }

    private static int port(Config config, String path) {
        int number = config.getInt(path);
        if (number < 0 || number > 65_535) {
            throw new ConfigurationException(path + " must be 0..65535, not " + number + " (" + SettingsReader.origin(config, path) + ")");
        }
        return number;
    }

    /** Each {@code "host:port"}; from system properties the list arrives keyed 0, 1, ..., which Typesafe reads as a list. */
    private static List<ClusterSettings.SeedNode> seedNodes(Config config, String path) {
        List<String> values;
        try {
            values = config.getStringList(path);
        } catch (ConfigException.WrongType e) {
            throw new ConfigurationException(path + " must be a list of \"host:port\", not " + config.getValue(path).render()
                    + " (" + SettingsReader.origin(config, path) + ")", e);
        }
        var seeds = new ArrayList<ClusterSettings.SeedNode>();
        for (int i = 0; i < values.size(); i++) {
            var value = values.get(i);
            var index = i;
            seeds.add(ClusterSettings.SeedNode.parse(value).orElseThrow(() -> new ConfigurationException(path + "[" + index
                    + "] must be \"host:port\" with a port of 1..65535 (another node's cluster port), not \"" + value
                    + "\" (" + SettingsReader.origin(config, path) + ")")));
        }
        return seeds;
    }

    private static ClusterSettings.DowningStrategy strategy(Config config, String path) {
        var value = config.getString(path);
        return ClusterSettings.DowningStrategy.parse(value).orElseThrow(() -> new ConfigurationException(path + " must be "
                + Arrays.stream(ClusterSettings.DowningStrategy.values()).map(ClusterSettings.DowningStrategy::configName)
                        .collect(Collectors.joining(" or ")) + ", not " + value + " (" + SettingsReader.origin(config, path) + ")"));
    }
}
