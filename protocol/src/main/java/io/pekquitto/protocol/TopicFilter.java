package io.pekquitto.protocol;

/**
 * Rules for Topic Filters (4.7): '#' only as the whole last level ([MQTT-4.7.1-2]), '+' only as a
 * whole level ([MQTT-4.7.1-3]), at least one character ([MQTT-4.7.3-1]). Shared subscriptions
 * ({@code $share/group/filter}, 4.8.2) are recognised here; their group name holds no '/', '+' or '#'.
 */
public final class TopicFilter {
    public static final String SHARE_PREFIX = "$share/";

    private TopicFilter() {}

    /** Whether the text is a valid filter; a shared filter must also be valid as a whole. */
    public static boolean isValid(String filter) {
        if (filter.isEmpty()) return false;
        if (isShared(filter)) {
            int groupEnd = filter.indexOf('/', SHARE_PREFIX.length());
            if (groupEnd <= SHARE_PREFIX.length()) return false;  // no group, or no filter ([MQTT-4.8.2-1])
            String group = filter.substring(SHARE_PREFIX.length(), groupEnd);
            if (group.indexOf('+') >= 0 || group.indexOf('#') >= 0) return false;  // [MQTT-4.8.2-2]
            return isValidPlain(filter.substring(groupEnd + 1));
        }
        return isValidPlain(filter);
    }

    private static boolean isValidPlain(String filter) {
        if (filter.isEmpty()) return false;
        int length = filter.length();
        for (int i = 0; i < length; i++) {
            char c = filter.charAt(i);
            if (c == 0) return false;
            if (c == '#') {
                if (i != length - 1) return false;
                if (i > 0 && filter.charAt(i - 1) != '/') return false;
            } else if (c == '+') {
                if (i > 0 && filter.charAt(i - 1) != '/') return false;
                if (i < length - 1 && filter.charAt(i + 1) != '/') return false;
            }
        }
        return true;
    }

    public static boolean isShared(String filter) {
        return filter.startsWith(SHARE_PREFIX);
    }

    public static boolean hasWildcard(String filter) {
        return filter.indexOf('+') >= 0 || filter.indexOf('#') >= 0;
    }

    /** The share name of a valid shared filter. */
    public static String shareGroup(String sharedFilter) {
        return sharedFilter.substring(SHARE_PREFIX.length(), sharedFilter.indexOf('/', SHARE_PREFIX.length()));
    }

    /** The filter part of a valid shared filter ({@code $share/g/a/b} gives {@code a/b}). */
    public static String sharedFilterTopic(String sharedFilter) {
        return sharedFilter.substring(sharedFilter.indexOf('/', SHARE_PREFIX.length()) + 1);
    }

    /**
     * The reference matcher (4.7): the obvious, slow definition that the trie is tested against. A
     * filter starting with '+' or '#' does not match a topic starting with '$' ([MQTT-4.7.2-1]).
     */
    public static boolean matches(String filter, String topic) {
        if (TopicName.isSystem(topic) && !filter.isEmpty() && (filter.charAt(0) == '+' || filter.charAt(0) == '#')) {
            return false;
        }
        String[] filterLevels = filter.split("/", -1);
        String[] topicLevels = topic.split("/", -1);
        for (int i = 0; i < filterLevels.length; i++) {
            String level = filterLevels[i];
            if (level.equals("#")) return true;  // also matches the parent level ("a/#" matches "a")
            if (i >= topicLevels.length) return false;
            if (!level.equals("+") && !level.equals(topicLevels[i])) return false;
        }
        return filterLevels.length == topicLevels.length;
    }
}
