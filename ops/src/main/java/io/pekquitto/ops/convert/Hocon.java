package io.pekquitto.ops.convert;

/** Values written into the converted configuration. */
final class Hocon {
    private Hocon() {}

    /** A quoted HOCON string (JSON's escapes), so that a path with spaces, colons or backslashes stays one value. */
    static String quote(String text) {
        var quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
