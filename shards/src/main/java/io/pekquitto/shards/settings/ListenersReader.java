package io.pekquitto.shards.settings;

import static io.pekquitto.shards.settings.SettingsReader.origin;
import static io.pekquitto.shards.settings.SettingsReader.text;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
            try {
                listeners.add(new ListenerSettings(host, port, tls(listener, listenerPath + ".tls")));
            } catch (IllegalArgumentException e) {
                throw new ConfigurationException(listenerPath + ".port: " + e.getMessage() + " ("
                        + origin(listener, listenerPath + ".port") + ")", e);
            }
        }
        return listeners;
    }

    /** TLS if {@code cert-file} is set; any other TLS key without it is a mistake worth stopping for. */
    private static Optional<TlsSettings> tls(Config listener, String path) {
        var certFile = text(listener, path + ".cert-file");
        var keyFile = text(listener, path + ".key-file");
        var caFile = text(listener, path + ".ca-file");
        var keyPassword = listener.getString(path + ".key-password");
        var requireClientCertificate = listener.getBoolean(path + ".require-client-cert");
        var certificateNameAsUsername = listener.getBoolean(path + ".cert-cn-as-username");
        if (certFile.isEmpty()) {
            if (keyFile.isPresent() || caFile.isPresent() || !keyPassword.isEmpty() || requireClientCertificate
                    || certificateNameAsUsername) {
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
                caFile.map(Path::of), requireClientCertificate, certificateNameAsUsername));
    }
}
