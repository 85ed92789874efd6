package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Mosquitto 2.x configuration as a pekquitto one (HOCON): each option pekquitto has is carried over under the
 * key application.conf names for it ("Mosquitto: ..."), and every other line becomes a comment that says why it
 * was not. Mosquitto's password and ACL files are read by pekquitto as they are, so only their paths move.
 */
public final class MosquittoConversion {
    /** Options Mosquitto has that pekquitto does without, and why. */
    private static final Map<String, String> LEFT_OUT = Map.ofEntries(
            Map.entry("pid_file", "pekquitto writes no pid file (its supervisor knows the process)"),
            Map.entry("user", "pekquitto does not change user: start it as the user it should run as"),
            Map.entry("log_dest", "pekquitto logs to standard output (README, \"Operating pekquitto\")"),
            Map.entry("log_timestamp", "pekquitto's log lines always carry the time"),
            Map.entry("log_timestamp_format", "pekquitto's log lines carry the time in one format"),
            Map.entry("autosave_interval", "pekquitto's store writes every acknowledged message as it goes"),
            Map.entry("autosave_on_changes", "pekquitto's store writes every acknowledged message as it goes"),
            Map.entry("persistence_file", "pekquitto's store is a directory (store.path), not one file"),
            Map.entry("websockets_log_level", "pekquitto logs WebSocket connections as any other"),
            Map.entry("websockets_headers_size", "pekquitto bounds the WebSocket handshake itself"),
            Map.entry("set_tcp_nodelay", "pekquitto always sets TCP_NODELAY"),
            Map.entry("allow_zero_length_clientid", "pekquitto assigns a client id to a client that sends none"),
            Map.entry("auto_id_prefix", "pekquitto names the client ids it assigns itself"),
            Map.entry("memory_limit", "pekquitto's memory budget is memory.budget, a share of the heap"),
            Map.entry("mount_point", "pekquitto has no mount points"),
            Map.entry("http_dir", "pekquitto serves its own status page on WebSocket listeners (status-page)"),
            Map.entry("socket_domain", "pekquitto listens on the address family of the listener's host"),
            Map.entry("bind_interface", "pekquitto binds addresses, not interfaces: give the listener a host"),
            Map.entry("tls_version", "pekquitto speaks TLS 1.2 and 1.3"),
            Map.entry("ciphers", "pekquitto keeps its TLS provider's default cipher suites (docs/security.md)"),
            Map.entry("ciphers_tls1.3", "pekquitto keeps its TLS provider's default cipher suites (docs/security.md)"),
            Map.entry("capath", "pekquitto reads client CAs from one file (tls.ca-file)"),
            Map.entry("crlfile", "pekquitto has no certificate revocation lists"),
            Map.entry("psk_hint", "pekquitto has no TLS-PSK"),
            Map.entry("psk_file", "pekquitto has no TLS-PSK"),
            Map.entry("use_username_as_clientid", "pekquitto keeps the client's own client id"),
            Map.entry("use_subject_as_username", "pekquitto takes a certificate's CN as the username (cert-cn-as-username)"),
            Map.entry("check_retain_source", "pekquitto does not recheck a retained message's publisher"),
            Map.entry("upgrade_outgoing_qos", "pekquitto delivers at the QoS the MQTT rules give"),
            Map.entry("clientid_prefixes", "pekquitto has no client id prefixes: use the ACL file"),
            Map.entry("plugin", "pekquitto has no Mosquitto plugins"),
            Map.entry("auth_plugin", "pekquitto has no Mosquitto plugins"),
            Map.entry("global_plugin", "pekquitto has no Mosquitto plugins"));

    private final List<ConvertedListener> listeners = new ArrayList<>();
    /** Mosquitto's listener of {@code port} and {@code bind_address}, and of listener options before any {@code listener}. */
    private ConvertedListener defaultListener;
    private ConvertedListener current;
    /** Top-level keys of the result, in the order first set, with their values as HOCON. */
    private final Map<String, String> settings = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final List<ConvertedBridge> bridges = new ArrayList<>();
    /** The bridge whose section this is ({@code connection NAME}), or null before the first. */
    private ConvertedBridge bridge;

    private MosquittoConversion() {}

    /** The pekquitto configuration for the option lines of {@code source} ({@link MosquittoConf#read}). */
    public static String convert(Path source, List<Line> lines) {
        var conversion = new MosquittoConversion();
        lines.forEach(conversion::take);
        return conversion.render(source);
    }

    private void take(Line line) {
        var option = line.option();
        if (option.equals("connection")) {
            bridge = new ConvertedBridge(line);
            bridges.add(bridge);
        } else if (BridgeOptions.OPTIONS.contains(option)) {
            if (bridge != null) BridgeOptions.take(line, bridge, this);
            else note(line, "a bridge's option before any connection line (Mosquitto refuses it): left out");
        } else if (option.equals("listener")) {
            listener(line);
        } else if (ListenerOptions.applies(option)) {
            ListenerOptions.take(line, current != null ? current : defaultListener(), this);
        } else if (LEFT_OUT.containsKey(option)) {
            note(line, LEFT_OUT.get(option));
        } else {
            GlobalOptions.take(line, this);
        }
    }

    private void listener(Line line) {
        var port = integer(line, 0);
        if (port == null) return;
        if (line.arguments().size() > 1 && port == 0) {
            note(line, "pekquitto has no Unix socket listeners: this one and its options are left out");
            current = new ConvertedListener(0, null);  // takes its options, and is not in the result
            return;
        }
        current = new ConvertedListener(port, line.arguments().size() > 1 ? line.arguments().get(1) : null);
        listeners.add(current);
    }

    /** Mosquitto's listener from {@code port}: every interface, 1883 unless {@code port} says otherwise. */
    ConvertedListener defaultListener() {
        if (defaultListener == null) {
            defaultListener = new ConvertedListener(1883, null);
            listeners.add(0, defaultListener);
        }
        return defaultListener;
    }

    void set(String key, String hoconValue) {
        settings.put(key, hoconValue);
    }

    void note(Line line, String why) {
        notes.add(line.where() + ": " + line.text() + "\n#   " + why);
    }

    /** The line's argument {@code index} as an int, or null after a note that it is not one. */
    Integer integer(Line line, int index) {
        if (line.arguments().size() <= index) {
            note(line, "an argument is missing: left out");
            return null;
        }
        try {
            return Integer.parseInt(line.arguments().get(index));
        } catch (NumberFormatException e) {
            note(line, line.arguments().get(index) + " is not a whole number: left out");
            return null;
        }
    }

    /** The line's value as {@code true} or {@code false} (Mosquitto's words for a boolean), or null after a note. */
    String bool(Line line) {
        var value = line.value();
        if (value.equals("true") || value.equals("false")) return value;
        note(line, "expected true or false: left out");
        return null;
    }

    /**
     * The bridges with an address, each with what Mosquitto gives it from elsewhere: its local session as clean
     * as its remote one unless {@code local_cleansession} says otherwise, and the broker's {@code max_inflight_messages}.
     */
    private List<ConvertedBridge> completed(List<ConvertedBridge> all) {
        var complete = new ArrayList<ConvertedBridge>();
        for (var each : all) {
            if (!each.hasAddress()) {
                note(each.connection(), "bridge " + each.name() + " has no address (Mosquitto refuses it too): left out with its options");
                continue;
            }
            if (each.has("clean-start") && !each.has("local-clean-start")) each.set("local-clean-start", each.get("clean-start"));
            var inflight = settings.get("max-inflight-messages");
            if (inflight != null && !each.has("max-inflight")) each.set("max-inflight", inflight);
            complete.add(each);
        }
        return complete;
    }

    private String render(Path source) {
        var text = new StringBuilder();
        text.append("# pekquitto's configuration, converted from ").append(source).append(" by `pekquitto convert`.\n");
        text.append("# Check it: java -jar pekquitto.jar -c THIS_FILE --test-config\n");
        if (!listeners.isEmpty()) text.append(ConvertedListener.renderAll(listeners));
        var complete = completed(bridges);
        if (!complete.isEmpty()) text.append(ConvertedBridge.renderAll(complete));
        settings.forEach((key, value) -> text.append(key).append(" = ").append(value).append('\n'));
        if (!notes.isEmpty()) {
            text.append("\n# Not carried over, or carried over with a difference:\n");
            for (var note : notes) text.append("# ").append(note).append('\n');
        }
        return text.toString();
    }
}
