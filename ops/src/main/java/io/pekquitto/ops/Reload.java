package io.pekquitto.ops;

import io.pekquitto.auth.ReloadableSecurity;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.settings.AuthSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.settings.TlsSettings;
import io.pekquitto.shards.tcp.ListenerTls;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.lang.reflect.RecordComponent;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A reload of what can change while the broker runs: the password and ACL files ({@code auth}) and each
 * TLS listener's certificate, key and CA files. Everything is read first and swapped in only once all of
 * it was read, so a reload that fails (a file missing, a line that cannot be read, a key that does not
 * match its certificate) changes nothing. The rest of the settings needs a restart: {@link #needingRestart}
 * names what differs.
 */
final class Reload {

    /** The keys of the settings whose component name is not their key in kebab case. */
    private static final Map<String, String> KEYS = Map.of(
            "strictReceiveMaximum", "receive-maximum-policy",
            "connectionMessages", "log.connection-messages",
            "operations", "sys-interval, shutdown-timeout or metrics");

    private Reload() {}

    /**
     * Reads {@code next}'s files and swaps them in: the password and ACL files into {@code security} (when
     * the broker was started from files), and listener {@code i}'s TLS files into {@code tls.get(i)} (when
     * listener {@code i} serves TLS and still has a {@code tls} section in {@code next}).
     *
     * @return what was reloaded, one phrase each, for the log
     * @throws IllegalArgumentException naming the file that could not be read and why; nothing was swapped
     */
    static List<String> apply(BrokerSettings next, Optional<ReloadableSecurity> security,
                              List<Optional<ReloadableTls>> tls, List<InetSocketAddress> addresses) {
        var auth = security.map(files -> next.auth().readSecurity());
        var certificates = new ArrayList<Optional<ListenerTls>>();
        for (int i = 0; i < tls.size(); i++) {
            var settings = tls.get(i).isPresent() && i < next.listeners().size()
                    ? next.listeners().get(i).tls() : Optional.<TlsSettings>empty();
            try {
                certificates.add(settings.map(TlsFiles::load));
            } catch (TlsConfigurationException e) {
                throw new IllegalArgumentException(listener(i, addresses) + ": " + e.getMessage(), e);
            }
        }
        // Everything is read: from here on nothing fails.
        var reloaded = new ArrayList<String>();
        if (security.isPresent()) {
            security.get().replace(auth.orElseThrow());
            reloaded.add(describe(next.auth()));
        }
        for (int i = 0; i < certificates.size(); i++) {
            if (certificates.get(i).isEmpty()) continue;
            tls.get(i).orElseThrow().replace(certificates.get(i).get());
            reloaded.add("TLS files of " + listener(i, addresses));
        }
        return reloaded;
    }

    /**
     * The keys whose values differ between the settings the broker runs with and {@code after}, but for
     * what a reload applies ({@code auth}, and TLS files: a listener whose host, port or use of TLS
     * changes is named {@code listeners}).
     */
    static List<String> needingRestart(BrokerSettings before, BrokerSettings after) {
        var changed = new ArrayList<String>();
        for (var component : BrokerSettings.class.getRecordComponents()) {
            var name = component.getName();
            if (name.equals("auth")) continue;
            var differs = name.equals("listeners")
                    ? !addresses(before.listeners()).equals(addresses(after.listeners()))
                    : !Objects.equals(value(component, before), value(component, after));
            if (differs) changed.add(KEYS.getOrDefault(name, name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT)));
        }
        return changed;
    }

    /** What a listener is without its TLS files: where it listens, and whether it speaks TLS. */
    private static List<String> addresses(List<ListenerSettings> listeners) {
        return listeners.stream().map(l -> l.host() + ":" + l.port() + (l.tls().isPresent() ? " TLS" : "")).toList();
    }

    private static Object value(RecordComponent component, BrokerSettings settings) {
        try {
            return component.getAccessor().invoke(settings);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + component.getName() + " of the settings", e);
        }
    }

    private static String listener(int index, List<InetSocketAddress> addresses) {
        return "listener " + (index + 1) + (index < addresses.size() ? " (port " + addresses.get(index).getPort() + ")" : "");
    }

    /** The files a reload read for {@code auth}, as an operator would check them. */
    private static String describe(AuthSettings auth) {
        var parts = new ArrayList<String>();
        auth.passwordFile().ifPresent(file -> parts.add("password file " + file));
        auth.aclFile().ifPresent(file -> parts.add("ACL file " + file));
        if (!auth.acl().isEmpty()) parts.add("auth.acl (" + auth.acl().size() + " lines)");
        if (parts.isEmpty()) parts.add("auth (no password file, no ACL)");
        parts.add(auth.allowAnonymous() ? "anonymous clients allowed" : "anonymous clients refused");
        return String.join(", ", parts);
    }
}
