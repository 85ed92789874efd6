package io.pekquitto.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A scenario's result: one human-readable line, and the same values as one JSON line. */
final class Report {

    static final int OK = 0;
    static final int ERROR = 1;
    static final int LOSS = 2;

    private final Map<String, Object> values = new LinkedHashMap<>();
    private final StringBuilder line = new StringBuilder();
    int exitCode = OK;

    Report(String scenario) {
        values.put("scenario", scenario);
    }

    Report put(String key, Object value) {
        values.put(key, value);
        return this;
    }

    /** Appends to the summary line. */
    Report say(String format, Object... args) {
        if (line.length() > 0) line.append(", ");
        line.append(String.format(Locale.ROOT, format, args));
        return this;
    }

    Report error(String message) {
        values.merge("errors", message, (a, b) -> a + "; " + b);
        if (exitCode == OK) exitCode = ERROR;
        return this;
    }

    String line() {
        var errors = values.get("errors");
        return values.get("scenario") + ": " + line + (errors == null ? "" : " | ERRORS: " + errors);
    }

    String json() {
        var sb = new StringBuilder("{");
        var first = true;
        for (var e : values.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            sb.append('"').append(e.getKey()).append("\":");
            var v = e.getValue();
            if (v instanceof Double d) {
                sb.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null");
            } else if (v instanceof Number || v instanceof Boolean) {
                sb.append(v);
            } else if (v == null) {
                sb.append("null");
            } else {
                sb.append('"');
                for (char c : v.toString().toCharArray()) {
                    if (c == '"' || c == '\\') sb.append('\\').append(c);
                    else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
                sb.append('"');
            }
        }
        return sb.append('}').toString();
    }
}
