package io.pekquitto.auth.acl;

/**
 * Relations between two valid topic filters, over the topics they match (4.7, with '#' matching its
 * parent level and a leading wildcard never matching a '$' topic [MQTT-4.7.2-1]): what deciding a
 * subscription by its filter, not by each message, needs. Tested against brute force over a topic universe.
 */
public final class TopicFilters {
    private TopicFilters() {}

    /** Whether every topic {@code specific} matches is matched by {@code general}. */
    public static boolean covers(String general, String specific) {
        var g = general.split("/", -1);
        var s = specific.split("/", -1);
        for (int i = 0; ; i++) {
            if (i < g.length && g[i].equals("#")) return i > 0 || !startsWithDollar(s[0]);
            if (i == s.length) return i == g.length;
            if (i == g.length) return false;  // general ends here; specific goes on
            // specific's '#' takes the parent level too, which general (no '#' here) misses, unless that
            // parent would be the empty topic, which no topic is: then "+/#" matches all that "#" does.
            if (s[i].equals("#")) {
                boolean noParent = i == 0 || i == 1 && s[0].isEmpty();
                return noParent && g.length == i + 2 && g[i].equals("+") && g[i + 1].equals("#");
            }
            if (s[i].equals("+")) {
                if (!g[i].equals("+")) return false;
            } else if (g[i].equals("+")) {
                if (i == 0 && startsWithDollar(s[0])) return false;
            } else if (!g[i].equals(s[i])) {
                return false;
            }
        }
    }

    /** Whether some topic is matched by both filters. */
    public static boolean overlap(String first, String second) {
        var a = first.split("/", -1);
        var b = second.split("/", -1);
        for (int i = 0; ; i++) {
            boolean aEnded = i == a.length;
            boolean bEnded = i == b.length;
            if (aEnded && bEnded) return true;
            // "a" and "a/#" share the topic "a", unless that topic would be the empty one: no topic is.
            if (aEnded) return b[i].equals("#") && !(i == 1 && (a[0].isEmpty() || b[0].isEmpty()));
            if (bEnded) return a[i].equals("#") && !(i == 1 && (a[0].isEmpty() || b[0].isEmpty()));
            boolean aWild = a[i].equals("+") || a[i].equals("#");
            boolean bWild = b[i].equals("+") || b[i].equals("#");
            if (i == 0 && (aWild && startsWithDollar(b[0]) || bWild && startsWithDollar(a[0]))) return false;
            if (a[i].equals("#") || b[i].equals("#")) return true;
            if (!aWild && !bWild && !a[i].equals(b[i])) return false;
        }
    }

    private static boolean startsWithDollar(String level) {
        return level.startsWith("$");
    }
}
