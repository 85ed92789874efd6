package io.pekquitto.shards.settings;

import static io.pekquitto.shards.settings.SettingsReader.origin;
import static io.pekquitto.shards.settings.SettingsReader.text;

import com.typesafe.config.Config;
import java.nio.file.Path;
import io.pekquitto.protocol.ProtocolVersion;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code listeners} list: each entry over {@code listener-defaults}, so an entry gives only
 * what differs, e.g. {@code [[listeners]] port = 8883}; an entry with a {@code tls.cert-file} is a TLS
 * listener.
 */
final class ListenersReader {
    private ListenersReader() {}

    static List<ListenerSettings> read(Config config, String path, String defaultsPath) {
        var entries = config.getObjectList(path);
        if (entries.isEmpty()) {
            throw new ConfigurationException(path + " needs at least one listener (" + origin(config, path) + ")");
        }
        var template = config.getObject(defaultsPath);
        var listeners = new ArrayList<ListenerSettings>();
        for (int i = 0; i < entries.size(); i++) {
            var listenerPath = path + "." + i;
            var listener = entries.get(i).withFallback(template).toConfig().atPath(listenerPath);
            var host = listener.getString(listenerPath + ".host");
            var port = listener.getInt(listenerPath + ".port");
            if (host.isBlank()) {
                throw new ConfigurationException(listenerPath + ".host must not be empty ("
                        + origin(listener, listenerPath + ".host") + ")");
            }
            var tls = tls(listener, listenerPath + ".tls");
            var websocket = websocket(listener, listenerPath);
            var proxyProtocol = listener.getBoolean(listenerPath + ".proxy-protocol");
            var maxConnections = listener.getInt(listenerPath + ".max-connections");
            var versions = protocolVersions(listener, listenerPath + ".protocol-versions");
            var reusePort = listener.getBoolean(listenerPath + ".reuse-port");
            try {
                listeners.add(new ListenerSettings(host, port, tls, websocket, proxyProtocol, maxConnections, versions, reusePort));
            } catch (IllegalArgumentException e) {
                var key = e.getMessage().startsWith("max-connections") ? ".max-connections" : ".port";
                throw new ConfigurationException(listenerPath + key + ": " + e.getMessage() + " ("
                        + origin(listener, listenerPath + key) + ")", e);
            }
        }
        return listeners;
    }

    /** {@code protocol}: {@code mqtt}, or {@code websocket} with its {@code path} and {@code status-page}. */
    private static Optional<WebSocketSettings> websocket(Config listener, String path) {
        var protocol = listener.getString(path + ".protocol");
        switch (protocol) {
            case "mqtt":
                return Optional.empty();
            case "websocket":
                try {
                    return Optional.of(new WebSocketSettings(listener.getString(path + ".path"),
                            listener.getBoolean(path + ".status-page")));
                } catch (IllegalArgumentException e) {
                    throw new ConfigurationException(path + ".path: " + e.getMessage() + " ("
                            + origin(listener, path + ".path") + ")", e);
                }
            default:
                throw new ConfigurationException(path + ".protocol must be mqtt or websocket, not \"" + protocol
                        + "\" (" + origin(listener, path + ".protocol") + ")");
        }
    }

    /** {@code protocol-versions}: a non-empty list of "3.1", "3.1.1" and "5". */
    private static Set<ProtocolVersion> protocolVersions(Config listener, String path) {
        var versions = EnumSet.noneOf(ProtocolVersion.class);
        for (var name : listener.getStringList(path)) {
            versions.add(versionNamed(name).orElseThrow(() -> new ConfigurationException(path + ": \"" + name
                    + "\" is not an MQTT version: \"3.1\", \"3.1.1\" or \"5\" (" + origin(listener, path) + ")")));
        }
        if (versions.isEmpty()) {
            throw new ConfigurationException(path + " must name at least one version (" + origin(listener, path) + ")");
        }
        return versions;
    }

    /** The MQTT version a setting names: "3.1", "3.1.1", "5" or "5.0" (a listener's, a bridge's). */
    static Optional<ProtocolVersion> versionNamed(String name) {
        return switch (name) {
            case "3.1" -> Optional.of(ProtocolVersion.MQTT_3_1);
            case "3.1.1" -> Optional.of(ProtocolVersion.MQTT_3_1_1);
            case "5", "5.0" -> Optional.of(ProtocolVersion.MQTT_5);
            default -> Optional.empty();
        };
    }

    /** TLS if {@code cert-file} is set; any other TLS key without it is a mistake worth stopping for. */
    private static Optional<TlsSettings> tls(Config listener, String path) {
        var certFile = text(listener, path + ".cert-file");
        var keyFile = text(listener, path + ".key-file");
        var caFile = text(listener, path + ".ca-file");
        var keyPassword = listener.getString(path + ".key-password");
        var requireClientCertificate = listener.getBoolean(path + ".require-client-cert");
        var certificateNameAsUsername = listener.getBoolean(path + ".cert-cn-as-username");
        var provider = provider(listener, path + ".provider");
        if (certFile.isEmpty()) {
            if (keyFile.isPresent() || caFile.isPresent() || !keyPassword.isEmpty() || requireClientCertificate
                    || certificateNameAsUsername || provider != TlsSettings.Provider.AUTO) {
                throw new ConfigurationException(path + ".cert-file is needed for a TLS listener (" + origin(listener, path) + ")");
            }
            return Optional.empty();
        }
        if (keyFile.isEmpty()) {
            throw new ConfigurationException(path + ".key-file is needed with cert-file (" + origin(listener, path + ".cert-file") + ")");
        }
        if (requireClientCertificate && caFile.isEmpty()) {
            throw new ConfigurationException(path + ".ca-file is needed to verify client certificates with require-client-cert ("
                    + origin(listener, path + ".require-client-cert") + ")");
        }
        if (certificateNameAsUsername && caFile.isEmpty()) {
            throw new ConfigurationException(path + ".ca-file is needed to verify client certificates with cert-cn-as-username ("
                    + origin(listener, path + ".cert-cn-as-username") + ")");
        }
        return Optional.of(new TlsSettings(Path.of(certFile.get()), Path.of(keyFile.get()),
                keyPassword.isEmpty() ? Optional.empty() : Optional.of(keyPassword),
                caFile.map(Path::of), requireClientCertificate, certificateNameAsUsername, provider));
    }

    /** {@code provider}: auto, openssl or jdk. */
    private static TlsSettings.Provider provider(Config listener, String path) {
        var name = listener.getString(path);
        return switch (name) {
            case "auto" -> TlsSettings.Provider.AUTO;
            case "openssl" -> TlsSettings.Provider.OPENSSL;
            case "jdk" -> TlsSettings.Provider.JDK;
            default -> throw new ConfigurationException(path + " must be auto, openssl or jdk, not \"" + name + "\" ("
                    + origin(listener, path) + ")");
        };
    }
}
