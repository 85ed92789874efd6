package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.util.ArrayList;
import java.util.Set;

/** Mosquitto's options of one listener (those after its {@code listener} line), as keys of a pekquitto listener. */
final class ListenerOptions {
    private static final Set<String> OPTIONS = Set.of("port", "bind_address", "protocol", "certfile", "keyfile", "cafile",
            "require_certificate", "use_identity_as_username", "max_connections", "enable_proxy_protocol",
            "accept_protocol_versions");

    private ListenerOptions() {}

    static boolean applies(String option) {
        return OPTIONS.contains(option);
    }

    /** Carries {@code line} over onto {@code listener}, or notes in {@code conversion} why it does not. */
    static void take(Line line, ConvertedListener listener, MosquittoConversion conversion) {
        switch (line.option()) {
            case "port" -> {
                var port = conversion.integer(line, 0);
                if (port != null) conversion.defaultListener().port(port);
            }
            case "bind_address" -> conversion.defaultListener().host(line.value());
            case "protocol" -> protocol(line, listener, conversion);
            case "certfile" -> listener.tls("cert-file", Hocon.quote(line.value()));
            case "keyfile" -> listener.tls("key-file", Hocon.quote(line.value()));
            case "cafile" -> listener.tls("ca-file", Hocon.quote(line.value()));
            case "require_certificate" -> {
                var value = conversion.bool(line);
                if (value != null) listener.tls("require-client-cert", value);
            }
            case "use_identity_as_username" -> {
                var value = conversion.bool(line);
                if (value != null) listener.tls("cert-cn-as-username", value);
            }
            case "max_connections" -> {
                var limit = conversion.integer(line, 0);
                if (limit != null) listener.set("max-connections", Integer.toString(limit < 0 ? -1 : limit));
            }
            case "enable_proxy_protocol" -> listener.set("proxy-protocol", "true");  // 1 or 2: pekquitto reads both
            case "accept_protocol_versions" -> versions(line, listener, conversion);
            default -> throw new IllegalArgumentException("not a listener option: " + line.option());
        }
    }

    private static void protocol(Line line, ConvertedListener listener, MosquittoConversion conversion) {
        switch (line.value()) {
            case "mqtt" -> { }
            case "websockets" -> {
                listener.set("protocol", "websocket");
                conversion.note(line, "pekquitto serves MQTT over WebSockets at path = \"/mqtt\" alone (Mosquitto: any path); "
                        + "set the listener's path to the one your clients use");
            }
            default -> conversion.note(line, "pekquitto's listeners speak mqtt or websockets: left out");
        }
    }

    /** Mosquitto 2.1's protocol numbers (3, 4, 5) as pekquitto's versions. */
    private static void versions(Line line, ConvertedListener listener, MosquittoConversion conversion) {
        var versions = new ArrayList<String>();
        for (var number : line.value().split("[,\\s]+")) {
            switch (number) {
                case "3" -> versions.add("\"3.1\"");
                case "4" -> versions.add("\"3.1.1\"");
                case "5" -> versions.add("\"5\"");
                default -> {
                    conversion.note(line, "protocol version " + number + " is not 3, 4 or 5: the line is left out");
                    return;
                }
            }
        }
        listener.set("protocol-versions", "[" + String.join(", ", versions) + "]");
    }
}
