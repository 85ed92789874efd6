package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One of Mosquitto's bridges ({@code connection NAME} and its options) as an entry of pekquitto's {@code bridges}. */
final class ConvertedBridge {
    private final Line connection;
    private final String name;
    private final List<String> addresses = new ArrayList<>();
    private final Map<String, String> keys = new LinkedHashMap<>();
    private final Map<String, String> tls = new LinkedHashMap<>();
    private final List<String> topics = new ArrayList<>();

    /** The bridge of {@code connection NAME}. */
    ConvertedBridge(Line connection) {
        this.connection = connection;
        this.name = connection.value();
    }

    Line connection() {
        return connection;
    }

    String name() {
        return name;
    }

    /** An address as Mosquitto writes it, {@code host[:port]}: pekquitto reads the same, 1883 if no port. */
    void address(String hostAndPort) {
        addresses.add(hostAndPort);
    }

    boolean hasAddress() {
        return !addresses.isEmpty();
    }

    /** A key of the bridge ({@code start-type}, {@code keep-alive}, ...) with its value as HOCON. */
    void set(String key, String hoconValue) {
        keys.put(key, hoconValue);
    }

    boolean has(String key) {
        return keys.containsKey(key);
    }

    String get(String key) {
        return keys.get(key);
    }

    /** A key of its {@code tls} section. */
    void tls(String key, String hoconValue) {
        tls.put(key, hoconValue);
    }

    /** An entry of its {@code topics}, rendered ({@link BridgeTopic#render}). */
    void topic(String rendered) {
        topics.add(rendered);
    }

    String render() {
        var text = new StringBuilder("  {\n");
        text.append("    name = ").append(Hocon.quote(name)).append('\n');
        text.append("    addresses = [").append(String.join(", ", addresses.stream().map(Hocon::quote).toList())).append("]\n");
        keys.forEach((key, value) -> text.append("    ").append(key).append(" = ").append(value).append('\n'));
        if (!tls.isEmpty()) {
            var inner = new ArrayList<String>();
            tls.forEach((key, value) -> inner.add(key + " = " + value));
            text.append("    tls { ").append(String.join(", ", inner)).append(" }\n");
        }
        text.append("    topics = [");
        if (!topics.isEmpty()) {
            text.append('\n');
            for (var topic : topics) text.append("      ").append(topic).append('\n');
            text.append("    ");
        }
        return text.append("]\n  }\n").toString();
    }

    static String renderAll(List<ConvertedBridge> bridges) {
        var text = new StringBuilder("bridges = [\n");
        for (var bridge : bridges) text.append(bridge.render());
        return text.append("]\n").toString();
    }
}
