package io.pekquitto.routing;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.protocol.TopicName;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * The retained messages of one shard, indexed by Topic Name levels, so that a SUBSCRIBE finds the
 * retained topics its filter matches without scanning them all (3.3.1.3).
 *
 * <p>A trie of topic levels: one node per level prefix of the stored topics, exact children in a
 * {@code HashMap} keyed by the level's text (read in place through a {@link TopicLevel} probe); the
 * node where a topic ends holds its message. A filter walks the trie by its own levels: an exact
 * level follows one child, '+' follows every child of that level, '#' takes the whole subtree,
 * the node it hangs from included ("sport/#" matches "sport", 4.7.1.2). A filter whose first level
 * is a wildcard skips the root's children whose text starts with '$', so it never sees "$SYS/..."
 * ([MQTT-4.7.2-1]); "$SYS/#" follows the exact child "$SYS" and does. The walk keeps its pending
 * branches on an explicit stack, not the thread's: a client sets the depth (32,768 levels fit in a
 * 65,535-byte topic). Removing a message prunes the nodes it leaves empty, so the index is bounded
 * by the live retained messages (docs/security.md, Limits against hostile clients); removing all of
 * them leaves the root alone. Single-threaded: each shard owns its index (docs/architecture.md,
 * Threading). {@code $share} means nothing here: shared subscriptions receive no retained messages
 * (4.8.2), so callers do not ask for them.
 *
 * @param <M> the retained message
 */
public final class RetainedIndex<M> {
    private static final int SUBTREE = -1;  // a pending entry that takes its node's whole subtree

    private final Node<M> root = new Node<>(null, "");
    private final TopicLevel probe = new TopicLevel();
    private int size;
    private int nodeCount = 1;

    /**
     * Stores the topic's retained message, replacing the one it had ([MQTT-3.3.1-5] in 5.0). A
     * zero-byte retained payload removes instead ([MQTT-3.3.1-10] in 3.1.1, [MQTT-3.3.1-6] in 5.0):
     * the caller calls {@link #remove} for it.
     *
     * @return the replaced message, or null
     * @throws IllegalArgumentException if the topic is not a valid Topic Name (4.7.3)
     */
    public M put(String topic, M message) {
        if (!TopicName.isValid(topic)) throw new IllegalArgumentException("invalid topic name: " + topic);
        Objects.requireNonNull(message, "message");
        var node = root;
        int start = 0;
        while (true) {
            int end = TopicLevel.end(topic, start);
            node = childOrCreate(node, topic, start, end);
            if (end == topic.length()) break;
            start = end + 1;
        }
        M previous = node.message;
        node.message = message;
        node.topic = topic;
        if (previous == null) size++;
        return previous;
    }

    /** The topic's retained message, or null. */
    public M get(String topic) {
        var node = find(topic);
        return node == null ? null : node.message;
    }

    /**
     * Removes the topic's retained message and prunes the nodes it leaves empty.
     *
     * @return the removed message, or null if there was none
     */
    public M remove(String topic) {
        var node = find(topic);
        if (node == null || node.message == null) return null;
        M removed = node.message;
        node.message = null;
        node.topic = null;
        size--;
        prune(node);
        return removed;
    }

    /**
     * Gives the consumer every retained (topic, message) that the filter matches, each once, in no
     * particular order. The consumer may remove or replace the message it is given (an expired
     * message, say); other changes during the walk may or may not be seen.
     *
     * @throws IllegalArgumentException if the filter is not a valid Topic Filter (4.7.1, 4.7.3)
     */
    public void forEachMatching(String filter, BiConsumer<String, M> consumer) {
        if (!TopicFilter.isValid(filter)) throw new IllegalArgumentException("invalid topic filter: " + filter);
        int length = filter.length();
        var pending = new ArrayDeque<Pending<M>>();
        pending.push(new Pending<>(root, 0));
        while (!pending.isEmpty()) {
            var next = pending.pop();
            var node = next.node();
            int start = next.start();
            if (start == SUBTREE) {
                accept(node, consumer);
                pushChildren(node, SUBTREE, false, pending);
                continue;
            }
            while (node != null) {  // follow exact levels here, leave branches for later
                if (start > length) {  // no level left
                    accept(node, consumer);
                    break;
                }
                int end = TopicLevel.end(filter, start);
                boolean firstLevel = node == root;  // a wildcard here skips '$' topics [MQTT-4.7.2-1]
                if (end - start == 1 && filter.charAt(start) == '#') {
                    accept(node, consumer);  // "sport/#" matches "sport" (4.7.1.2)
                    pushChildren(node, SUBTREE, firstLevel, pending);
                    break;
                }
                if (end - start == 1 && filter.charAt(start) == '+') {
                    pushChildren(node, end + 1, firstLevel, pending);
                    break;
                }
                node = node.children == null ? null : node.children.get(probe.of(filter, start, end));
                start = end + 1;
            }
        }
    }

    /** Gives the consumer every retained (topic, message), '$' topics included. */
    public void forEach(BiConsumer<String, M> consumer) {
        var pending = new ArrayDeque<Node<M>>();
        pending.push(root);
        while (!pending.isEmpty()) {
            var node = pending.pop();
            accept(node, consumer);
            if (node.children != null) node.children.values().forEach(pending::push);
        }
    }

    /** The number of retained messages. */
    public int size() {
        return size;
    }

    /** The number of index nodes, the root included: 1 when empty. */
    public int nodeCount() {
        return nodeCount;
    }

    private static <M> void accept(Node<M> node, BiConsumer<String, M> consumer) {
        if (node.message != null) consumer.accept(node.topic, node.message);
    }

    private static <M> void pushChildren(Node<M> node, int start, boolean skipSystem, ArrayDeque<Pending<M>> pending) {
        if (node.children == null) return;
        for (var child : node.children.values()) {
            if (skipSystem && TopicName.isSystem(child.level)) continue;
            pending.push(new Pending<>(child, start));
        }
    }

    private Node<M> find(String topic) {
        var node = root;
        int start = 0;
        while (node != null && node.children != null) {
            int end = TopicLevel.end(topic, start);
            node = node.children.get(probe.of(topic, start, end));
            if (end == topic.length()) return node;
            start = end + 1;
        }
        return null;
    }

    private Node<M> childOrCreate(Node<M> parent, String topic, int start, int end) {
        if (parent.children == null) parent.children = new HashMap<>(2);
        var child = parent.children.get(probe.of(topic, start, end));
        if (child == null) {
            var level = topic.substring(start, end);
            child = new Node<>(parent, level);
            parent.children.put(level, child);
            nodeCount++;
        }
        return child;
    }

    /** Unlinks the node and then each ancestor that is left holding nothing, up to the root. */
    private void prune(Node<M> node) {
        while (node != root && node.message == null && node.children == null) {
            var parent = node.parent;
            parent.children.remove(node.level);
            if (parent.children.isEmpty()) parent.children = null;
            nodeCount--;
            node = parent;
        }
    }

    private record Pending<M>(Node<M> node, int start) {}

    private static final class Node<M> {
        private final Node<M> parent;  // to prune upwards without recursion
        private final String level;
        private HashMap<String, Node<M>> children;  // null while there are none
        private M message;
        private String topic;  // the topic ending here, while it has a message

        private Node(Node<M> parent, String level) {
            this.parent = parent;
            this.level = level;
        }
    }
}
