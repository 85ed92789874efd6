package io.pekquitto.routing;

/**
 * One level of a topic name or filter, as a window over the text, so that a trie can look up a
 * child in a {@code HashMap<String, ...>} without copying the level into a new string.
 *
 * <p>{@link java.util.Map#get} compares with {@code Objects.equals(probe, storedKey)}, so a probe
 * that hashes like {@link String#hashCode} and equals a stored string with the same characters
 * finds it. The relation is one-sided ({@code "a".equals(probe)} is false): use a probe only as
 * the argument of {@code get}, never as a key. One probe per trie suffices: its state lives only
 * for the duration of one {@code get}.
 */
final class TopicLevel {
    private String text = "";
    private int start;
    private int end;

    /** Points the probe at {@code text[start, end)} and returns it. */
    TopicLevel of(String text, int start, int end) {
        this.text = text;
        this.start = start;
        this.end = end;
        return this;
    }

    /** The end of the level starting at {@code start}: the next '/' or the end of the text. */
    static int end(String text, int start) {
        int slash = text.indexOf('/', start);
        return slash < 0 ? text.length() : slash;
    }

    @Override
    public int hashCode() {  // the String.hashCode formula, over the window
        int hash = 0;
        for (int i = start; i < end; i++) {
            hash = 31 * hash + text.charAt(i);
        }
        return hash;
    }

    @Override
    public boolean equals(Object other) {
        int length = end - start;
        return other instanceof String level && level.length() == length && level.regionMatches(0, text, start, length);
    }

    @Override
    public String toString() {
        return text.substring(start, end);
    }
}
