package io.pekquitto.routing;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.protocol.TopicName;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The subscriptions of one shard: a trie of Topic Filter levels, matched once per PUBLISH.
 *
 * <h2>A note on the design</h2>
 *
 * <p><b>Shape.</b> One node per level prefix of the stored filters; the root is the empty prefix.
 * Exact children live in a {@code HashMap} keyed by the level's text; the '+' and '#' children live
 * in their own fields (as in HiveMQ's {@code TopicTreeNode}), so matching reaches them without a
 * lookup and never confuses a wildcard with text. The node where a filter ends holds that filter's
 * subscribers (key, e.g. a client id, to value, e.g. the subscription options) and the filter text,
 * handed to the visitor as is.
 *
 * <p><b>Matching</b> a topic of L levels. At a node reached after i levels, with a level left: the
 * '#' child matches (it covers this level and all below), the '+' child continues at level i+1,
 * and so does the exact child for the level's text. When the levels run out, the node's own
 * subscribers match, and so do its '#' child's: "sport/#" matches "sport" (4.7.1.2). Empty
 * levels are levels like any other ("/finance" is "" then "finance"). A filter is one node, and for
 * a given topic at most one path leads to it, so each (filter, key) is visited exactly once. The
 * cost is one lookup per level per live '+' branch, whatever the number of subscriptions.
 *
 * <p><b>'$' topics.</b> At the root only, a topic starting with '$' skips the '+' and '#' children
 * ([MQTT-4.7.2-1]); "$SYS/#" lives under the exact child "$SYS" and matches "$SYS/x" as usual.
 *
 * <p><b>No allocation per match</b> beyond the visitor's own (and a {@code HashMap} iterator per
 * matching node, which escape analysis usually removes): levels are read in place through a
 * {@link TopicLevel} probe, and the '+' branches still to explore wait on an explicit stack of two
 * arrays, reused across calls. Explicit, not recursion, because a client sets the depth: a
 * 65,535-byte filter has 32,768 levels, enough to overflow a thread's stack. Each call works above
 * the stack depth it found, so a visitor may match again from inside {@code visit}.
 *
 * <p><b>Bounded by live state</b> (docs/security.md, Limits against hostile clients). A node exists
 * only while a filter at or below it has a subscriber: {@link #remove} prunes emptied nodes up to the
 * root, so removing every subscription leaves the root alone ({@link #nodeCount} is 1); the scratch
 * stack shrinks back after an unusually deep match.
 *
 * <p><b>Not here.</b> Shared subscriptions: callers store {@code $share/group/filter} under its
 * filter part with a key that names the group; the trie gives {@code $share} no meaning. No locks:
 * each shard owns its trie and touches it from its own thread only (docs/architecture.md, Threading).
 *
 * @param <K> the subscriber key (equality by {@code equals}/{@code hashCode})
 * @param <V> the subscription's value, e.g. its options
 */
public final class SubscriptionTrie<K, V> {

    /** Receives each subscription whose filter matches a topic. */
    @FunctionalInterface
    public interface MatchVisitor<K, V> {
        void visit(String filter, K key, V value);
    }

    private static final int PENDING_INITIAL = 16;
    private static final int PENDING_KEPT_MAX = 1024;

    private final Node<K, V> root = new Node<>(null, "");
    private final TopicLevel probe = new TopicLevel();
    private Node<K, V>[] pendingNodes = newNodes(PENDING_INITIAL);
    private int[] pendingStarts = new int[PENDING_INITIAL];
    private int pendingTop;
    private int size;
    private int nodeCount = 1;

    /**
     * Adds a subscription, or replaces the value of the same key on the same filter (a
     * re-SUBSCRIBE replaces the options, [MQTT-3.8.4-3]).
     *
     * @return the previous value, or null if the key had no subscription to this filter
     * @throws IllegalArgumentException if the filter is not a valid Topic Filter (4.7.1, 4.7.3)
     */
    public V put(String filter, K key, V value) {
        if (!TopicFilter.isValid(filter)) throw new IllegalArgumentException("invalid topic filter: " + filter);
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        var node = root;
        int start = 0;
        while (true) {
            int end = TopicLevel.end(filter, start);
            node = childOrCreate(node, filter, start, end);
            if (end == filter.length()) break;
            start = end + 1;
        }
        if (node.subscribers == null) {
            node.subscribers = new HashMap<>(2);  // most filters have one subscriber
            node.filter = filter;
        }
        V previous = node.subscribers.put(key, value);
        if (previous == null) size++;
        return previous;
    }

    /** The value of the key's subscription to exactly this filter, or null. */
    public V get(String filter, K key) {
        var node = find(filter);
        return node == null || node.subscribers == null ? null : node.subscribers.get(key);
    }

    /**
     * Removes the key's subscription to exactly this filter, and prunes the nodes it leaves empty.
     *
     * @return the removed value, or null if there was none
     */
    public V remove(String filter, K key) {
        var node = find(filter);
        if (node == null || node.subscribers == null) return null;
        V removed = node.subscribers.remove(key);
        if (removed == null) return null;
        size--;
        if (node.subscribers.isEmpty()) {
            node.subscribers = null;
            node.filter = null;
            prune(node);
        }
        return removed;
    }

    /**
     * Visits every subscription whose filter matches the topic, each exactly once, in no particular
     * order. The visitor must not add or remove subscriptions while it is called; it may match again.
     */
    public void forEachMatch(String topic, MatchVisitor<K, V> visitor) {
        int base = pendingTop;
        int length = topic.length();
        boolean system = TopicName.isSystem(topic);
        push(root, 0);
        try {
            while (pendingTop > base) {
                pendingTop--;
                var node = pendingNodes[pendingTop];
                int start = pendingStarts[pendingTop];
                pendingNodes[pendingTop] = null;
                while (node != null) {  // follow exact children here, leave '+' branches for later
                    if (start > length) {  // no level left
                        visit(node, visitor);
                        if (node.hash != null) visit(node.hash, visitor);  // "sport/#" matches "sport" (4.7.1.2)
                        break;
                    }
                    int end = TopicLevel.end(topic, start);
                    if (node != root || !system) {  // '+' or '#' first does not match '$' topics [MQTT-4.7.2-1]
                        if (node.hash != null) visit(node.hash, visitor);
                        if (node.plus != null) push(node.plus, end + 1);
                    }
                    node = node.children == null ? null : node.children.get(probe.of(topic, start, end));
                    start = end + 1;
                }
            }
        } finally {
            while (pendingTop > base) pendingNodes[--pendingTop] = null;  // only if the visitor threw
            if (base == 0 && pendingNodes.length > PENDING_KEPT_MAX) {
                pendingNodes = newNodes(PENDING_INITIAL);
                pendingStarts = new int[PENDING_INITIAL];
            }
        }
    }

    /** The number of (filter, key) subscriptions. */
    public int size() {
        return size;
    }

    /** The number of trie nodes, the root included: 1 when empty. */
    public int nodeCount() {
        return nodeCount;
    }

    private static <K, V> void visit(Node<K, V> node, MatchVisitor<K, V> visitor) {
        if (node.subscribers == null) return;
        for (Map.Entry<K, V> subscriber : node.subscribers.entrySet()) {
            visitor.visit(node.filter, subscriber.getKey(), subscriber.getValue());
        }
    }

    private void push(Node<K, V> node, int start) {
        if (pendingTop == pendingNodes.length) {
            pendingNodes = Arrays.copyOf(pendingNodes, pendingTop * 2);
            pendingStarts = Arrays.copyOf(pendingStarts, pendingTop * 2);
        }
        pendingNodes[pendingTop] = node;
        pendingStarts[pendingTop] = start;
        pendingTop++;
    }

    /** The node where the filter ends, or null; wildcard levels select the wildcard children. */
    private Node<K, V> find(String filter) {
        var node = root;
        int start = 0;
        while (node != null) {
            int end = TopicLevel.end(filter, start);
            node = child(node, filter, start, end);
            if (end == filter.length()) return node;
            start = end + 1;
        }
        return null;
    }

    private Node<K, V> child(Node<K, V> parent, String filter, int start, int end) {
        if (end - start == 1) {
            char c = filter.charAt(start);
            if (c == '+') return parent.plus;
            if (c == '#') return parent.hash;
        }
        return parent.children == null ? null : parent.children.get(probe.of(filter, start, end));
    }

    private Node<K, V> childOrCreate(Node<K, V> parent, String filter, int start, int end) {
        var child = child(parent, filter, start, end);
        if (child != null) return child;
        var level = filter.substring(start, end);
        child = new Node<>(parent, level);
        nodeCount++;
        if (level.equals("+")) {
            parent.plus = child;
        } else if (level.equals("#")) {
            parent.hash = child;
        } else {
            if (parent.children == null) parent.children = new HashMap<>(2);
            parent.children.put(level, child);
        }
        return child;
    }

    /** Unlinks the node and then each ancestor that is left holding nothing, up to the root. */
    private void prune(Node<K, V> node) {
        while (node != root && node.isEmpty()) {
            var parent = node.parent;
            if (parent.plus == node) {
                parent.plus = null;
            } else if (parent.hash == node) {
                parent.hash = null;
            } else {
                parent.children.remove(node.level);
                if (parent.children.isEmpty()) parent.children = null;
            }
            nodeCount--;
            node = parent;
        }
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Node<K, V>[] newNodes(int length) {
        return (Node<K, V>[]) new Node<?, ?>[length];
    }

    private static final class Node<K, V> {
        private final Node<K, V> parent;  // to prune upwards without recursion
        private final String level;
        private HashMap<String, Node<K, V>> children;  // exact levels; null while there are none
        private Node<K, V> plus;
        private Node<K, V> hash;
        private HashMap<K, V> subscribers;  // of the filter ending here; null while there are none
        private String filter;  // the filter ending here, while it has subscribers

        private Node(Node<K, V> parent, String level) {
            this.parent = parent;
            this.level = level;
        }

        private boolean isEmpty() {
            return subscribers == null && children == null && plus == null && hash == null;
        }
    }
}
