package io.pekquitto.ops.convert;

import io.pekquitto.ops.convert.MosquittoConf.Line;
import java.nio.file.Path;
import java.util.Map;

/** Mosquitto's options of the whole broker, as pekquitto's keys (application.conf says which is which). */
final class GlobalOptions {
    /** Options whose value is true or false, and pekquitto's key for each. */
    private static final Map<String, String> BOOLEANS = Map.of(
            "allow_anonymous", "auth.allow-anonymous",
            "persistence", "store.enabled",
            "retain_available", "retain-available",
            "queue_qos0_messages", "queue-qos0-messages",
            "connection_messages", "log.connection-messages");
    /** Options whose value is a whole number carried over as it is, and pekquitto's key for each. */
    private static final Map<String, String> NUMBERS = Map.of(
            "max_keepalive", "max-keep-alive",
            "max_qos", "max-qos",
            "max_topic_alias", "topic-alias-maximum");
    /** Options whose value is a file, and pekquitto's key for each. */
    private static final Map<String, String> FILES = Map.of(
            "password_file", "auth.password-file",
            "acl_file", "auth.acl-file");
    /** Seconds in each of {@code persistent_client_expiration}'s units (mosquitto.conf(5): a month is 30 days). */
    private static final Map<Character, Long> UNIT_SECONDS = Map.of('h', 3_600L, 'd', 86_400L, 'w', 604_800L,
            'm', 2_592_000L, 'y', 31_536_000L);

    private GlobalOptions() {}

    /** Carries {@code line} over into {@code conversion}, or notes why it does not. */
    static void take(Line line, MosquittoConversion conversion) {
        var option = line.option();
        if (BOOLEANS.containsKey(option)) {
            var value = conversion.bool(line);
            if (value != null) conversion.set(BOOLEANS.get(option), value);
        } else if (NUMBERS.containsKey(option)) {
            var value = conversion.integer(line, 0);
            if (value != null) conversion.set(NUMBERS.get(option), Integer.toString(value));
        } else if (FILES.containsKey(option)) {
            conversion.set(FILES.get(option), Hocon.quote(line.value()));
            if (option.equals("acl_file")) {
                conversion.note(line, "pekquitto judges a subscription when it is made: one that a deny rule overlaps is refused "
                        + "(Mosquitto grants it and withholds the denied messages; docs/security.md)");
            }
        } else {
            switch (option) {
                case "persistence_location" -> {
                    conversion.set("store.path", Hocon.quote(Path.of(line.value()).resolve("pekquitto").toString()));
                    conversion.note(line, "pekquitto's store is a directory of its own, made there: Mosquitto's "
                            + "mosquitto.db is not read, so sessions and retained messages start afresh");
                }
                case "max_inflight_messages" -> unlimitedAsMost(line, conversion, "max-inflight-messages", 65_535);
                case "max_queued_messages" -> unlimitedAsMost(line, conversion, "max-queued-messages", Integer.MAX_VALUE);
                case "max_queued_bytes" -> {
                    var value = conversion.integer(line, 0);
                    if (value != null && value > 0) conversion.set("max-queued-bytes", Integer.toString(value));
                }
                case "max_packet_size" -> packetSize(line, conversion);
                case "message_size_limit" -> {
                    packetSize(line, conversion);
                    conversion.note(line, "pekquitto bounds the whole packet (max-packet-size), not the payload alone");
                }
                case "sys_interval" -> {
                    var value = conversion.integer(line, 0);
                    if (value != null) conversion.set("sys-interval", Math.max(0, value) + "s");
                }
                case "persistent_client_expiration" -> expiration(line, conversion);
                case "per_listener_settings" -> {
                    if (!"false".equals(conversion.bool(line))) {
                        conversion.note(line, "pekquitto's authentication and ACLs are the broker's, for every listener: "
                                + "the last allow_anonymous, password_file and acl_file hold for all of them");
                    }
                }
                case "log_type" -> logType(line, conversion);
                default -> conversion.note(line, "not an option this converter knows: left out");
            }
        }
    }

    /** Mosquitto's 0 means no limit; pekquitto's greatest value stands for it. */
    private static void unlimitedAsMost(Line line, MosquittoConversion conversion, String key, int most) {
        var value = conversion.integer(line, 0);
        if (value == null) return;
        conversion.set(key, Integer.toString(value <= 0 ? most : Math.min(value, most)));
    }

    private static void packetSize(Line line, MosquittoConversion conversion) {
        var value = conversion.integer(line, 0);
        if (value != null && value > 0) conversion.set("max-packet-size", Integer.toString(value));
    }

    /** {@code persistent_client_expiration 14d}: the closest pekquitto has is a bound on every session's expiry. */
    private static void expiration(Line line, MosquittoConversion conversion) {
        var value = line.value();
        Long seconds = null;
        if (value.length() > 1 && UNIT_SECONDS.containsKey(value.charAt(value.length() - 1))) {
            try {
                seconds = Long.parseLong(value.substring(0, value.length() - 1)) * UNIT_SECONDS.get(value.charAt(value.length() - 1));
            } catch (NumberFormatException e) {
                seconds = null;
            }
        }
        if (seconds == null || seconds < 0) {
            conversion.note(line, "expected a number and h, d, w, m or y: left out");
            return;
        }
        conversion.set("max-session-expiry", Math.min(seconds, 4_294_967_295L) + "s");
        conversion.note(line, "as max-session-expiry: pekquitto bounds every session's expiry by it, MQTT 5 ones too");
    }

    /** {@code log_type debug} or {@code all} is pekquitto's DEBUG; its other types are always logged at INFO and above. */
    private static void logType(Line line, MosquittoConversion conversion) {
        switch (line.value()) {
            case "debug", "all" -> conversion.set("log.level", "DEBUG");
            case "error", "warning", "notice", "information", "subscribe", "unsubscribe", "websockets", "none" ->
                    conversion.note(line, "pekquitto logs at log.level (INFO by default) and above, whatever the type");
            default -> conversion.note(line, "not a log type: left out");
        }
    }
}
