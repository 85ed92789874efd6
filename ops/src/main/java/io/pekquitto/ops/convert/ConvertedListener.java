package io.pekquitto.ops.convert;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One of Mosquitto's listeners as a pekquitto listener: its keys and its {@code tls} section, rendered as HOCON. */
final class ConvertedListener {
    private final Map<String, String> keys = new LinkedHashMap<>();
    private final Map<String, String> tls = new LinkedHashMap<>();

    ConvertedListener(int port, String host) {
        keys.put("port", Integer.toString(port));
        if (host != null) keys.put("host", Hocon.quote(host));
    }

    void port(int port) {
        keys.put("port", Integer.toString(port));
    }

    void host(String host) {
        keys.put("host", Hocon.quote(host));
    }

    /** A key of the listener: {@code protocol}, {@code max-connections}, ... with its value as HOCON. */
    void set(String key, String hoconValue) {
        keys.put(key, hoconValue);
    }

    /** A key of its {@code tls} section. */
    void tls(String key, String hoconValue) {
        tls.put(key, hoconValue);
    }

    String render() {
        var parts = new ArrayList<String>();
        keys.forEach((key, value) -> parts.add(key + " = " + value));
        if (!tls.isEmpty()) {
            var inner = new ArrayList<String>();
            tls.forEach((key, value) -> inner.add(key + " = " + value));
            parts.add("tls { " + String.join(", ", inner) + " }");
        }
        return "{ " + String.join(", ", parts) + " }";
    }

    static String renderAll(List<ConvertedListener> listeners) {
        var text = new StringBuilder("listeners = [\n");
        for (var listener : listeners) text.append("  ").append(listener.render()).append('\n');
        return text.append("]\n").toString();
    }
}
