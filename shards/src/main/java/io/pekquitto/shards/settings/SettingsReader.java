package io.pekquitto.shards.settings;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import com.typesafe.config.ConfigValueType;
import io.pekquitto.shards.store.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Reads {@link BrokerSettings} from the {@code pekquitto} section of a configuration, once, at start.
 * It refuses what the broker could only misread: keys the defaults do not have (a typo would otherwise
 * be ignored), values of the wrong type or out of range, and durations without a unit. Every message
 * names the key's full path and where its value came from (a file and line, or a system property).
 *
 * <p>The defaults are the root {@code application.conf}, which the build packages into this module as
 * {@code pekquitto/application.conf}: the one place where a default is written down.
 */
public final class SettingsReader {

    /** The root of every broker key. */
    public static final String ROOT = "pekquitto";

    /** Where the root {@code application.conf} is on the classpath. */
    public static final String DEFAULTS_RESOURCE = "pekquitto/application.conf";

    private static final Config DEFAULTS = ConfigFactory.parseResources(SettingsReader.class.getClassLoader(),
            DEFAULTS_RESOURCE, ConfigParseOptions.defaults().setAllowMissing(false)).resolve();

    /** MQTT 5's largest Session Expiry Interval, four bytes of seconds, which means "never expires". */
    static final Duration PROTOCOL_MAX_SESSION_EXPIRY = Duration.ofSeconds(4_294_967_295L);

    private SettingsReader() {}

    /**
     * The built-in defaults alone: the root {@code application.conf} as packaged. Not
     * {@code ConfigFactory.defaultReference()}, which also applies the JVM's system properties (a
     * {@code -Dpekquitto.listeners.0.host} would turn the listener list into an object there).
     */
    public static Config defaults() {
        return DEFAULTS;
    }

    /** Reads the settings from {@code config}, which holds the {@link #defaults} under what overrides them. */
    public static BrokerSettings read(Config config) {
        var defaults = DEFAULTS.getObject(ROOT);
        // Each listener is checked against listener-defaults, which has every key a listener may have.
        var known = defaults.withValue("listeners", ConfigValueFactory.fromIterable(List.of(defaults.get("listener-defaults"))));
        // Each bridge against bridge-defaults, and each of its topics against topic-defaults.
        var bridge = DEFAULTS.getConfig(path("bridge-defaults"));
        var knownBridge = bridge.root().withValue("topics", ConfigValueFactory.fromIterable(List.of(bridge.getValue("topic-defaults"))));
        known = known.withValue("bridges", ConfigValueFactory.fromIterable(List.of(knownBridge)));
        checkKnownKeys(config.getObject(ROOT), known, ROOT);
        try {
            int shards = shards(config);
            long partialPacketBudget = partialPacketBudget(config);
            var memory = memorySettings(config, shards, partialPacketBudget);
            return new BrokerSettings(
                    shards,
                    ListenersReader.read(config, path("listeners"), path("listener-defaults")),
                    size(config, path("max-packet-size")),
                    config.getInt(path("max-keep-alive")),
                    config.getInt(path("receive-maximum")),
                    config.getInt(path("max-inflight-messages")),
                    config.getInt(path("max-queued-messages")),
                    config.getBoolean(path("queue-qos0-messages")),
                    config.getBoolean(path("retain-available")),
                    config.getInt(path("max-qos")),
                    config.getInt(path("topic-alias-maximum")),
                    maxSessionExpiry(config),
                    positive(config, path("connect-timeout")),
                    Placement.parse(config.getString(path("placement"))),
                    queueLimitBytes(config),
                    receiveMaximumPolicy(config),
                    config.getString(path("response-information-prefix")),
                    SlowSubscriberPolicy.parse(config.getString(path("slow-subscriber-policy"))),
                    new ParkingSettings(config.getBoolean(path("parking.enabled")), positive(config, path("parking.idle-grace"))),
                    size(config, path("max-connect-size")),
                    partialPacketBudget,
                    AuthSettingsReader.read(config, path("auth")),
                    storeSettings(config),
                    config.getBoolean(path("log.connection-messages")),
                    operationsSettings(config),
                    memory,
                    ClusterSettingsReader.read(config, path("cluster")),
                    BridgesReader.read(config, path("bridges"), path("bridge-defaults")));
        } catch (ConfigException e) {
            // Typesafe's message already names the origin and the full path.
            throw new ConfigurationException(e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw outOfRange(config, defaults.keySet(), e);
        }
    }

    private static String path(String key) {
        return ROOT + "." + key;
    }

    /** Where the value at {@code path} was set: the file and line, or the default. */
    static String origin(Config config, String path) {
        return config.getValue(path).origin().description();
    }

    /** The string at {@code path}, stripped; empty when it is blank (an empty string is "not set"). */
    static Optional<String> text(Config config, String path) {
        var value = config.getString(path).strip();
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    /**
     * BrokerSettings checks its own ranges, so each rule lives in one place; its messages begin with the
     * key's name ("max-qos must be 0, 1 or 2, not 3", or a nested one's: "memory.budget must ..."), which
     * is how the key to blame is found here.
     */
    private static ConfigurationException outOfRange(Config config, Collection<String> keys, IllegalArgumentException e) {
        var message = e.getMessage();
        var named = message.substring(0, Math.max(0, message.indexOf(' ')));
        for (var key : keys) {
            if (named.equals(key) || (named.startsWith(key + ".") && config.hasPath(path(named)))) {
                return new ConfigurationException(ROOT + "." + message + " (" + origin(config, path(named)) + ")", e);
            }
        }
        return new ConfigurationException(ROOT + ": " + message, e);
    }

    private static OperationsSettings operationsSettings(Config config) {
        var metrics = new OperationsSettings.MetricsSettings(config.getBoolean(path("metrics.enabled")),
                config.getString(path("metrics.host")), config.getInt(path("metrics.port")));
        return new OperationsSettings(duration(config, path("sys-interval")), positive(config, path("shutdown-timeout")), metrics);
    }

    private static StoreSettings storeSettings(Config config) {
        var path = path("store.durability");
        var value = config.getString(path);
        var durability = switch (value) {
            case "none" -> Durability.NONE;
            case "batch" -> Durability.BATCH;
            case "fsync" -> Durability.FSYNC;
            default -> throw new ConfigurationException(path + " must be none, batch or fsync, not " + value
                    + " (" + origin(config, path) + ")");
        };
        var directory = text(config, path("store.path")).orElseThrow(() -> new ConfigurationException(
                path("store.path") + " must name a directory (" + origin(config, path("store.path")) + ")"));
        var window = path("store.queued-in-memory");
        int queuedInMemory = config.getInt(window);
        if (queuedInMemory < 2) {
            throw new ConfigurationException(window + " must be at least 2, not " + queuedInMemory + " (" + origin(config, window) + ")");
        }
        return new StoreSettings(config.getBoolean(path("store.enabled")), Path.of(directory), durability, queuedInMemory);
    }

    private static boolean receiveMaximumPolicy(Config config) {
        var path = path("receive-maximum-policy");
        var value = config.getString(path);
        return switch (value) {
            case "strict" -> true;
            case "lenient" -> false;
            default -> throw new ConfigurationException(path + " must be strict or lenient, not " + value
                    + " (" + origin(config, path) + ")");
        };
    }

    /**
     * {@code shards = auto}: one shard per two processors, at least one, leaving a processor per shard
     * for the kernel's side of its sockets, the listeners and the store: measured on 2 cores, one shard
     * beat two in throughput, on Pekko IO and again on Netty (BENCHMARKS.md). Hosts with more cores were
     * not measured.
     */
    static int autoShards(int processors) {
        return Math.max(1, processors / 2);
    }

    private static int shards(Config config) {
        var path = path("shards");
        var value = config.getValue(path);
        if (value.valueType() == ConfigValueType.STRING && "auto".equals(value.unwrapped())) {
            return autoShards(Runtime.getRuntime().availableProcessors());
        }
        try {
            return config.getInt(path);  // a system property's "2" is a string, which getInt reads
        } catch (ConfigException.WrongType e) {
            throw new ConfigurationException(path + " must be a number of at least 1 or auto, not "
                    + value.render() + " (" + value.origin().description() + ")", e);
        }
    }

    private static Duration maxSessionExpiry(Config config) {
        var path = path("max-session-expiry");
        var expiry = duration(config, path);
        if (expiry.isNegative() || expiry.compareTo(PROTOCOL_MAX_SESSION_EXPIRY) > 0) {
            throw new ConfigurationException(path + " must be 0s.." + PROTOCOL_MAX_SESSION_EXPIRY.toSeconds() + "s, not "
                    + config.getValue(path).render() + " (" + origin(config, path) + ")");
        }
        return expiry;
    }

    /** {@code auto}: a quarter of the heap the JVM may grow to, so hostile clients cannot take it all. */
    private static long partialPacketBudget(Config config) {
        var path = path("partial-packet-budget");
        return isAuto(config, path) ? Runtime.getRuntime().maxMemory() / 4 : config.getBytes(path);
    }

    private static boolean isAuto(Config config, String path) {
        var value = config.getValue(path);
        return value.valueType() == ConfigValueType.STRING && "auto".equals(value.unwrapped());
    }

    /** {@code max-queued-bytes} as a limit on the queue, in the heap and the store: none with {@code auto}. */
    private static long queueLimitBytes(Config config) {
        var path = path("max-queued-bytes");
        return isAuto(config, path) ? 0 : bytes(config, path, "a size, 0 or auto");
    }

    /**
     * {@code memory.budget}: {@code auto} ({@link MemorySettings#autoBudget}), a size, or 0 for none; and a
     * client's share of it: a quarter of a shard's part, or {@code max-queued-bytes} if that is set larger
     * (a size keeps Mosquitto's meaning, the queue's payload bytes, which a smaller share would cut short),
     * or none with {@code max-queued-bytes = 0}.
     */
    private static MemorySettings memorySettings(Config config, int shards, long partialPacketBudget) {
        var budgetPath = path("memory.budget");
        long budget = isAuto(config, budgetPath)
                ? MemorySettings.autoBudget(Runtime.getRuntime().maxMemory(), partialPacketBudget)
                : bytes(config, budgetPath, "a size, 0 or auto");
        long share = MemorySettings.autoShare(budget / Math.max(1, shards));  // shards < 1 is refused by BrokerSettings
        var sharePath = path("max-queued-bytes");
        if (!isAuto(config, sharePath)) {
            long queueLimit = bytes(config, sharePath, "a size, 0 or auto");
            share = queueLimit == 0 ? 0 : Math.max(share, queueLimit);
        }
        if (budget == 0) share = 0;  // memory.budget = 0 turns every memory rule off
        return new MemorySettings(budget, share, positive(config, path("memory.over-share-grace")));
    }

    /** A size in bytes, naming what else the key takes when its value is no size. */
    private static long bytes(Config config, String path, String expected) {
        try {
            return config.getBytes(path);
        } catch (ConfigException.BadValue | ConfigException.WrongType e) {
            throw new ConfigurationException(path + " must be " + expected + ", not " + config.getValue(path).render()
                    + " (" + origin(config, path) + ")", e);
        }
    }

    /** A size in bytes ("1MiB" or a number); beyond an int it is clamped, for BrokerSettings to refuse. */
    private static int size(Config config, String path) {
        return (int) Math.min(Integer.MAX_VALUE, config.getBytes(path));
    }

    /** A duration longer than zero. */
    static Duration positive(Config config, String path) {
        var timeout = duration(config, path);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new ConfigurationException(path + " must be longer than 0s, not " + config.getValue(path).render()
                    + " (" + origin(config, path) + ")");
        }
        return timeout;
    }

    private static Duration duration(Config config, String path) {
        var value = config.getValue(path);
        // Typesafe reads a bare number as milliseconds: in a broker, where Mosquitto counts seconds, a trap.
        var bare = value.valueType() == ConfigValueType.NUMBER
                || value.valueType() == ConfigValueType.STRING && value.unwrapped().toString().strip().matches("[0-9]+");
        if (bare) {
            throw new ConfigurationException(path + " needs a unit, e.g. " + value.unwrapped().toString().strip()
                    + "s for seconds (" + value.origin().description() + ")");
        }
        return config.getDuration(path);
    }

    private static void checkKnownKeys(ConfigObject actual, ConfigObject known, String path) {
        for (var entry : actual.entrySet()) {
            var key = entry.getKey();
            var knownValue = known.get(key);
            if (knownValue == null) throw unknownKey(path, key, entry.getValue(), known.keySet());
            checkKnownKeys(entry.getValue(), knownValue, path + "." + key);
        }
    }

    private static void checkKnownKeys(ConfigValue actual, ConfigValue known, String path) {
        if (known instanceof ConfigObject knownObject && actual instanceof ConfigObject actualObject) {
            checkKnownKeys(actualObject, knownObject, path);
        } else if (known instanceof ConfigList knownList && !knownList.isEmpty()
                && knownList.get(0) instanceof ConfigObject element) {
            // A list of objects: each element against the default's first. From system properties a list
            // arrives as an object keyed 0, 1, ... (`-Dpekquitto.listeners.0.port=8883`).
            if (actual instanceof ConfigList list) {
                for (int i = 0; i < list.size(); i++) {
                    if (list.get(i) instanceof ConfigObject object) checkKnownKeys(object, element, path + "." + i);
                }
            } else if (actual instanceof ConfigObject object) {
                for (var entry : object.entrySet()) {
                    if (entry.getValue() instanceof ConfigObject o) checkKnownKeys(o, element, path + "." + entry.getKey());
                }
            }
        }
        // Anything else is a type question, answered by the typed read.
    }

    private static ConfigurationException unknownKey(String path, String key, ConfigValue value, Collection<String> known) {
        var message = path + "." + key + " is not a known key (" + value.origin().description() + ")";
        if (key.equals(ROOT)) {
            return new ConfigurationException(message + "; a configuration file holds the keys without the "
                    + ROOT + " { } root");
        }
        var closest = closest(key, known);
        return new ConfigurationException(closest == null ? message : message + "; did you mean " + path + "." + closest + "?");
    }

    /** The known key nearest to a misspelt one (`max_qos`, `shard`), if any is near enough. */
    private static String closest(String key, Collection<String> known) {
        String best = null;
        int bestDistance = Math.max(2, key.length() / 3) + 1;
        for (var candidate : known) {
            var distance = editDistance(key, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int editDistance(String a, String b) {
        var previous = new int[b.length() + 1];
        var current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) previous[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                var substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            var swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
