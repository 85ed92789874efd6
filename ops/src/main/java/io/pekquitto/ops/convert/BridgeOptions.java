package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Mosquitto's options of a bridge (mosquitto.conf(5), "Configuring Bridges", and the 2.1 ones), as keys of a
 * pekquitto bridge (application.conf, {@code bridge-defaults}, says which is which).
 */
final class BridgeOptions {
    /** Options whose value is true or false, and pekquitto's key for each. */
    private static final Map<String, String> BOOLEANS = Map.of(
            "round_robin", "round-robin",
            "cleansession", "clean-start",
            "local_cleansession", "local-clean-start",
            "try_private", "try-private",
            "notifications", "notifications");
    /** Options whose value is a string carried over as it is (the deprecated names too), and pekquitto's key for each. */
    private static final Map<String, String> STRINGS = Map.of(
            "remote_clientid", "client-id",
            "clientid", "client-id",
            "local_clientid", "local-client-id",
            "remote_username", "username",
            "username", "username",
            "remote_password", "password",
            "password", "password",
            "notification_topic", "notification-topic");
    /** Options of the bridge's TLS whose value is a file or a word, and pekquitto's key in its {@code tls}. */
    private static final Map<String, String> TLS = Map.of(
            "bridge_cafile", "ca-file",
            "bridge_certfile", "cert-file",
            "bridge_keyfile", "key-file",
            "bridge_alpn", "alpn");
    /** Options pekquitto's bridges do without, and why: what the bridge code does in their place. */
    private static final Map<String, String> LEFT_OUT = Map.ofEntries(
            Map.entry("bridge_bind_address", "pekquitto's bridges connect from the address the system picks"),
            Map.entry("bridge_max_packet_size", "pekquitto's bridges have no bound of their own on what they send "
                    + "(nor do they heed an MQTT 5 remote's Maximum Packet Size)"),
            Map.entry("bridge_capath", "pekquitto reads the remote's CAs from one file (tls.ca-file)"),
            Map.entry("bridge_identity", "pekquitto has no TLS-PSK"),
            Map.entry("bridge_psk", "pekquitto has no TLS-PSK"),
            Map.entry("bridge_tls_version", "pekquitto's bridges offer TLS 1.3 and 1.2 and take the one the remote picks"),
            Map.entry("bridge_require_ocsp", "pekquitto's bridges do not check OCSP"),
            Map.entry("local_username", "pekquitto's bridges have no local user: their client here is trusted code in process, "
                    + "so no ACL limits what they carry (Mosquitto's ACLs judge the bridge as this user)"),
            Map.entry("local_password", "pekquitto's bridges do not log in here: their client is trusted code in process"),
            Map.entry("bridge_receive_maximum", "pekquitto's bridges tell an MQTT 5 remote the broker's receive-maximum"),
            Map.entry("bridge_session_expiry_interval", "pekquitto's bridges ask an MQTT 5 remote to keep their session "
                    + "for ever, or for no time with clean-start = true"),
            Map.entry("bridge_max_topic_alias", "pekquitto's bridges use no topic aliases"),
            Map.entry("bridge_reload_type", "pekquitto's bridges change only with a restart: SIGHUP says that changed bridges "
                    + "need one"));
    /** Every option that belongs to a bridge section. */
    static final Set<String> OPTIONS = union();

    private BridgeOptions() {}

    private static Set<String> union() {
        var all = new HashSet<>(Set.of("address", "addresses", "start_type", "threshold", "idle_timeout",
                "restart_timeout", "bridge_protocol_version", "keepalive_interval", "notifications_local_only",
                "bridge_insecure", "bridge_attempt_unsubscribe", "bridge_outgoing_retain", "topic"));
        all.addAll(BOOLEANS.keySet());
        all.addAll(STRINGS.keySet());
        all.addAll(TLS.keySet());
        all.addAll(LEFT_OUT.keySet());
        return Set.copyOf(all);
    }

    /** Carries {@code line} over onto {@code bridge}, or notes in {@code conversion} why it does not. */
    static void take(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        var option = line.option();
        if (BOOLEANS.containsKey(option)) {
            var value = conversion.bool(line);
            if (value != null) bridge.set(BOOLEANS.get(option), value);
        } else if (STRINGS.containsKey(option)) {
            bridge.set(STRINGS.get(option), Hocon.quote(line.value()));
        } else if (TLS.containsKey(option)) {
            bridge.tls(TLS.get(option), Hocon.quote(line.value()));
        } else if (LEFT_OUT.containsKey(option)) {
            conversion.note(line, LEFT_OUT.get(option));
        } else {
            switch (option) {
                case "address", "addresses" -> addresses(line, bridge, conversion);
                case "start_type" -> startType(line, bridge, conversion);
                case "threshold" -> {
                    var value = conversion.integer(line, 0);
                    if (value != null) bridge.set("threshold", Integer.toString(Math.max(1, value)));
                }
                case "idle_timeout" -> seconds(line, bridge, conversion, "idle-timeout", 1);
                case "keepalive_interval" -> keepAlive(line, bridge, conversion);
                case "restart_timeout" -> restartTimeout(line, bridge, conversion);
                case "bridge_protocol_version" -> protocolVersion(line, bridge, conversion);
                case "bridge_insecure" -> {
                    var value = conversion.bool(line);
                    if (value != null) bridge.tls("insecure", value);
                }
                // Each of these is pekquitto's own way at one value: only the other is worth a note.
                case "bridge_attempt_unsubscribe" -> {
                    if ("true".equals(conversion.bool(line))) {
                        conversion.note(line, "pekquitto's bridges never unsubscribe at the remote (as false): a subscription "
                                + "that a kept remote session holds from an earlier in topic stays");
                    }
                }
                case "bridge_outgoing_retain" -> {
                    if ("false".equals(conversion.bool(line))) {
                        conversion.note(line, "pekquitto's bridges send retain flags as published (as true): a remote "
                                + "without retained messages gets them too");
                    }
                }
                case "notifications_local_only" -> {
                    // pekquitto publishes the state here alone: true is its own way, nothing to say.
                    if (!"true".equals(conversion.bool(line))) {
                        conversion.note(line, "pekquitto publishes the bridge's state here only: the remote is not notified");
                    }
                }
                case "topic" -> {
                    var topic = BridgeTopic.convert(line, conversion);
                    if (topic != null) bridge.topic(topic);
                }
                default -> throw new IllegalArgumentException("not a bridge option: " + option);
            }
        }
    }

    /** {@code address host[:port] [host[:port]]...}; several lines add up (Mosquitto 2 takes one line alone). */
    private static void addresses(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        int added = 0;
        for (var address : line.arguments()) {
            if (address.startsWith("#")) break;  // a comment, as Mosquitto reads the line
            bridge.address(address);
            added++;
        }
        if (added == 0) conversion.note(line, "no address given: left out");
    }

    private static void startType(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        switch (line.value()) {
            case "automatic", "lazy", "once" -> bridge.set("start-type", line.value());
            default -> conversion.note(line, "pekquitto's bridges start automatic, lazy or once (Mosquitto has no other): left out");
        }
    }

    private static void seconds(Line line, ConvertedBridge bridge, MosquittoConversion conversion, String key, int least) {
        var value = conversion.integer(line, 0);
        if (value != null) bridge.set(key, Math.max(least, value) + "s");
    }

    /** Mosquitto raises a Keep Alive under 5 seconds to 5, and refuses one over 65535. */
    private static void keepAlive(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        var value = conversion.integer(line, 0);
        if (value == null) return;
        if (value > 65_535) {
            conversion.note(line, "a Keep Alive is at most 65535 seconds (Mosquitto refuses it too): left out");
            return;
        }
        bridge.set("keep-alive", Math.max(5, value) + "s");
    }

    /** {@code restart_timeout constant} waits as long every time (base = cap); {@code restart_timeout base cap} backs off. */
    private static void restartTimeout(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        var base = conversion.integer(line, 0);
        if (base == null) return;
        base = Math.max(1, base);  // Mosquitto raises it to 1 second
        int cap = base;
        if (line.arguments().size() > 1) {
            var second = conversion.integer(line, 1);
            if (second == null) return;
            if (second < base) {
                conversion.note(line, "the cap is below the base (Mosquitto refuses it too): left out");
                return;
            }
            cap = second;
        }
        bridge.set("restart-timeout", "{ base = " + base + "s, cap = " + cap + "s }");
    }

    private static void protocolVersion(Line line, ConvertedBridge bridge, MosquittoConversion conversion) {
        switch (line.value()) {
            case "mqttv311" -> bridge.set("protocol-version", "\"3.1.1\"");
            case "mqttv50" -> bridge.set("protocol-version", "\"5\"");
            case "mqttv31" -> conversion.note(line, "pekquitto's bridges speak MQTT 3.1.1 or 5, not 3.1: "
                    + "left out, so this bridge speaks 3.1.1");
            default -> conversion.note(line, "not mqttv31, mqttv311 or mqttv50: left out");
        }
    }
}
