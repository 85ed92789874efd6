package io.pekquitto.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;

/**
 * The command line of {@code pekquitto}, in Mosquitto's style and with its option names:
 * {@code [-c FILE] [-p PORT] [-v] [-h] [--version] [--test-config]}.
 */
record CommandLine(Optional<Path> configFile, OptionalInt port, boolean verbose, boolean help, boolean version,
                   boolean testConfig) {

    static final String USAGE = """
            Usage: pekquitto [-c FILE] [-p PORT] [-v] [-h] [--version] [--test-config]
                   pekquitto passwd [-c] [-b] [-D] FILE USER [PASSWORD]   (as mosquitto_passwd)
                   pekquitto convert MOSQUITTO_CONF   (prints the same configuration for pekquitto)

              -c, --config-file FILE  read the configuration from FILE: .conf, .hocon (HOCON), .json or .toml
              -p, --port PORT         listen on PORT (0-65535) instead of the first listener's port
              -v, --verbose           log at DEBUG level
              -h, --help              print this help and exit
              --version               print the version and exit
              --test-config           check the configuration and the files it names (passwords, ACL,
                                      certificates), say whether it is valid, and exit (0 if it is)

            Without -c the built-in defaults apply: one listener on 127.0.0.1:1883, reachable from this
            machine only; configure a listener to open it to the network. A system property sets
            any key and wins over the file: java -Dpekquitto.max-qos=1 -jar pekquitto.jar
            """;

    static CommandLine parse(String... args) {
        Optional<Path> configFile = Optional.empty();
        var port = OptionalInt.empty();
        var verbose = false;
        var help = false;
        var version = false;
        var testConfig = false;
        for (int i = 0; i < args.length; i++) {
            var arg = args[i];
            switch (arg) {
                case "-c", "--config-file" -> configFile = Optional.of(path(argument(args, ++i, arg)));
                case "-p", "--port" -> port = OptionalInt.of(port(argument(args, ++i, arg)));
                case "-v", "--verbose" -> verbose = true;
                case "-h", "--help" -> help = true;
                case "--version" -> version = true;
                case "--test-config" -> testConfig = true;
                default -> throw new ConfigurationException(
                        (arg.startsWith("-") ? "unknown option " : "unexpected argument ") + arg);
            }
        }
        return new CommandLine(configFile, port, verbose, help, version, testConfig);
    }

    /** What the configuration sets: the broker's settings and, for the standalone broker, {@code log.level}. */
    record Configuration(BrokerSettings broker, String logLevel) {}

    /** The settings this command line asks for: the configuration, then {@code -p} on the first listener. */
    BrokerSettings settings(Properties systemProperties) {
        return configuration(systemProperties).broker();
    }

    /** The configuration this command line asks for, read now (at start, and again on each reload). */
    Configuration configuration(Properties systemProperties) {
        var config = ConfigLoader.load(configFile, systemProperties);
        var broker = SettingsReader.read(port.isPresent() ? withFirstListenerPort(config, port.getAsInt()) : config);
        return new Configuration(broker, LogLevel.configured(config));
    }

    private static String argument(String[] args, int index, String option) {
        if (index >= args.length) throw new ConfigurationException("option " + option + " needs an argument");
        return args[index];
    }

    private static Path path(String file) {
        try {
            return Path.of(file);
        } catch (InvalidPathException e) {
            throw new ConfigurationException("bad configuration file name " + file + ": " + e.getReason(), e);
        }
    }

    private static int port(String port) {
        try {
            var number = Integer.parseInt(port);
            if (number >= 0 && number <= 65_535) return number;
        } catch (NumberFormatException e) {
            // refused below, with the range
        }
        throw new ConfigurationException("bad port " + port + ": expected 0-65535");
    }

    /** {@code -p} as one more layer of configuration, so the reader checks the listener as it checks any. */
    private static Config withFirstListenerPort(Config config, int port) {
        var path = SettingsReader.ROOT + ".listeners";
        List<ConfigValue> listeners;
        try {
            listeners = new ArrayList<>(config.getList(path));
        } catch (ConfigException e) {
            return config;  // not a list of listeners: the reader says so, naming the key and where it was set
        }
        if (listeners.isEmpty() || !(listeners.get(0) instanceof ConfigObject first)) return config;
        listeners.set(0, first.withValue("port", ConfigValueFactory.fromAnyRef(port, "-p")));
        return config.withValue(path, ConfigValueFactory.fromIterable(listeners));
    }
}
