package io.pekquitto.shards.settings;

import static io.pekquitto.shards.settings.SettingsReader.origin;
import static io.pekquitto.shards.settings.SettingsReader.positive;
import static io.pekquitto.shards.settings.SettingsReader.text;

import com.typesafe.config.Config;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.protocol.TopicName;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads the {@code bridges} list: each entry over {@code bridge-defaults}, each of its topics over
 * {@code bridge-defaults.topic-defaults}. Every refusal names the key's path and where its value came from.
 */
final class BridgesReader {
    private BridgesReader() {}

    static List<BridgeSettings> read(Config config, String path, String defaultsPath) {
        var entries = config.getObjectList(path);
        var template = config.getObject(defaultsPath);
        var bridges = new ArrayList<BridgeSettings>();
        var names = new HashSet<String>();
        var localClientIds = new HashSet<String>();
        for (int i = 0; i < entries.size(); i++) {
            var at = path + "." + i;
            var bridge = entries.get(i).withFallback(template).toConfig().atPath(at);
            var settings = bridge(bridge, at);
            if (!names.add(settings.name())) {
                throw new ConfigurationException(at + ".name: another bridge is named \"" + settings.name() + "\" ("
                        + origin(bridge, at + ".name") + ")");
            }
            // Two bridges with one local session would take it from each other for ever.
            if (!localClientIds.add(settings.localClientId())) {
                throw new ConfigurationException(at + ".local-client-id: another bridge has \"" + settings.localClientId()
                        + "\" (" + origin(bridge, at + ".local-client-id") + ")");
            }
            bridges.add(settings);
        }
        return bridges;
    }

    private static BridgeSettings bridge(Config bridge, String at) {
        var name = text(bridge, at + ".name").orElseThrow(() -> new ConfigurationException(at + ".name is needed: every bridge has one ("
                + origin(bridge, at + ".name") + ")"));
        var clientId = text(bridge, at + ".client-id").orElseGet(() -> hostName() + "." + name);
        var localClientId = text(bridge, at + ".local-client-id").orElse("local." + clientId);
        var notificationTopic = text(bridge, at + ".notification-topic").orElse("$SYS/broker/connection/" + clientId + "/state");
        if (!TopicName.isValid(notificationTopic)) {
            throw new ConfigurationException(at + ".notification-topic: \"" + notificationTopic + "\" is not a topic name ("
                    + origin(bridge, at + ".notification-topic") + ")");
        }
        Duration base = positive(bridge, at + ".restart-timeout.base");
        Duration cap = positive(bridge, at + ".restart-timeout.cap");
        try {
            return new BridgeSettings(name, addresses(bridge, at + ".addresses"), bridge.getBoolean(at + ".round-robin"),
                    startType(bridge, at + ".start-type"), bridge.getInt(at + ".threshold"), positive(bridge, at + ".idle-timeout"),
                    base, cap, protocolVersion(bridge, at + ".protocol-version"), clientId, localClientId,
                    text(bridge, at + ".username"), text(bridge, at + ".password"), bridge.getBoolean(at + ".clean-start"),
                    bridge.getBoolean(at + ".local-clean-start"), (int) Math.min(Integer.MAX_VALUE, positive(bridge, at + ".keep-alive").toSeconds()),
                    bridge.getInt(at + ".max-inflight"), bridge.getBoolean(at + ".try-private"), bridge.getBoolean(at + ".notifications"),
                    notificationTopic, tls(bridge, at + ".tls"), topics(bridge, at + ".topics", at + ".topic-defaults"));
        } catch (IllegalArgumentException e) {
            // The record's own checks: their messages begin with the key they blame.
            var key = e.getMessage().substring(0, Math.max(0, e.getMessage().indexOf(' ')));
            var where = bridge.hasPath(at + "." + key) ? " (" + origin(bridge, at + "." + key) + ")" : "";
            throw new ConfigurationException(at + "." + e.getMessage() + where, e);
        }
    }

    /** The host's name, for default client ids as Mosquitto makes them; "pekquitto" if it has none. */
    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "pekquitto";
        }
    }

    /** "host:port", "host" (port 1883), "[v6]:port". */
    static List<BridgeSettings.Address> addresses(Config bridge, String path) {
        var addresses = new ArrayList<BridgeSettings.Address>();
        for (var text : bridge.getStringList(path)) {
            var value = text.strip();
            try {
                addresses.add(address(value));
            } catch (IllegalArgumentException e) {
                throw new ConfigurationException(path + ": \"" + value + "\" is not \"host:port\": " + e.getMessage() + " ("
                        + origin(bridge, path) + ")", e);
            }
        }
        return addresses;
    }

    static BridgeSettings.Address address(String value) {
        String host = value;
        String port = "1883";
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) throw new IllegalArgumentException("no ] after an IPv6 address");
            host = value.substring(1, close);
            if (value.length() > close + 1) {
                if (value.charAt(close + 1) != ':') throw new IllegalArgumentException("a port follows a colon");
                port = value.substring(close + 2);
            }
        } else if (value.indexOf(':') >= 0) {
            host = value.substring(0, value.lastIndexOf(':'));
            port = value.substring(value.lastIndexOf(':') + 1);
            if (host.contains(":")) throw new IllegalArgumentException("an IPv6 address goes in brackets, [::1]:1883");
        }
        try {
            return new BridgeSettings.Address(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port \"" + port + "\" is not a number");
        }
    }

    private static BridgeSettings.StartType startType(Config bridge, String path) {
        var name = bridge.getString(path);
        return switch (name) {
            case "automatic" -> BridgeSettings.StartType.AUTOMATIC;
            case "lazy" -> BridgeSettings.StartType.LAZY;
            case "once" -> BridgeSettings.StartType.ONCE;
            default -> throw new ConfigurationException(path + " must be automatic, lazy or once, not \"" + name + "\" ("
                    + origin(bridge, path) + ")");
        };
    }

    private static ProtocolVersion protocolVersion(Config bridge, String path) {
        var name = bridge.getString(path);
        return ListenersReader.versionNamed(name).filter(version -> version != ProtocolVersion.MQTT_3_1)
                .orElseThrow(() -> new ConfigurationException(path + " must be \"3.1.1\" or \"5\", not \"" + name + "\" ("
                        + origin(bridge, path) + ")"));
    }

    /** TLS when {@code ca-file} is set; another TLS key without it is a mistake worth stopping for. */
    private static Optional<BridgeSettings.Tls> tls(Config bridge, String path) {
        var caFile = text(bridge, path + ".ca-file");
        var certFile = text(bridge, path + ".cert-file").map(Path::of);
        var keyFile = text(bridge, path + ".key-file").map(Path::of);
        var insecure = bridge.getBoolean(path + ".insecure");
        var alpn = text(bridge, path + ".alpn");
        if (caFile.isEmpty()) {
            if (certFile.isPresent() || keyFile.isPresent() || insecure || alpn.isPresent()) {
                throw new ConfigurationException(path + ".ca-file is needed for TLS to the remote (" + origin(bridge, path) + ")");
            }
            return Optional.empty();
        }
        if (certFile.isPresent() != keyFile.isPresent()) {
            throw new ConfigurationException(path + ": cert-file and key-file go together (" + origin(bridge, path) + ")");
        }
        return Optional.of(new BridgeSettings.Tls(Path.of(caFile.get()), certFile, keyFile, insecure, alpn));
    }

    private static List<BridgeSettings.Topic> topics(Config bridge, String path, String defaultsPath) {
        var entries = bridge.getObjectList(path);
        var template = bridge.getObject(defaultsPath);
        var topics = new ArrayList<BridgeSettings.Topic>();
        for (int i = 0; i < entries.size(); i++) {
            var at = path + "." + i;
            var topic = entries.get(i).withFallback(template).toConfig().atPath(at);
            topics.add(topic(topic, at));
        }
        return topics;
    }

    /** Mosquitto's rules: a prefix holds no wildcard; an empty pattern needs both prefixes; the filters must be valid. */
    private static BridgeSettings.Topic topic(Config topic, String at) {
        var pattern = topic.getString(at + ".pattern").strip();
        var localPrefix = topic.getString(at + ".local-prefix").strip();
        var remotePrefix = topic.getString(at + ".remote-prefix").strip();
        var direction = topic.getString(at + ".direction");
        int qos = topic.getInt(at + ".qos");
        var where = " (" + origin(topic, at) + ")";
        if (qos < 0 || qos > 2) throw new ConfigurationException(at + ".qos must be 0, 1 or 2, not " + qos + where);
        var parsedDirection = switch (direction.toLowerCase(Locale.ROOT)) {
            case "out" -> BridgeSettings.Direction.OUT;
            case "in" -> BridgeSettings.Direction.IN;
            case "both" -> BridgeSettings.Direction.BOTH;
            default -> throw new ConfigurationException(at + ".direction must be out, in or both, not \"" + direction + "\"" + where);
        };
        for (var prefix : List.of(localPrefix, remotePrefix)) {
            if (prefix.contains("#") || prefix.contains("+")) {
                throw new ConfigurationException(at + ": a prefix may not hold a wildcard, \"" + prefix + "\"" + where);
            }
        }
        if (pattern.isEmpty() && (localPrefix.isEmpty() || remotePrefix.isEmpty())) {
            throw new ConfigurationException(at + ".pattern: an empty pattern needs both local-prefix and remote-prefix" + where);
        }
        var result = new BridgeSettings.Topic(pattern, parsedDirection, QoS.of(qos), localPrefix, remotePrefix);
        for (var filter : List.of(result.localFilter(), result.remoteFilter())) {
            if (!TopicFilter.isValid(filter)) throw new ConfigurationException(at + ": \"" + filter + "\" is not a topic filter" + where);
        }
        return result;
    }
}
