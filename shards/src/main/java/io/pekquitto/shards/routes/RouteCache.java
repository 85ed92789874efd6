package io.pekquitto.shards.routes;

import io.pekquitto.routing.RetainedIndex;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Routes by topic, reused until a subscription change touches them. Publishes repeat their topics,
 * and a trie walk per publish is the hot path; but a cache that any SUBSCRIBE anywhere wipes is
 * worthless under subscription churn. So a change of one filter drops exactly the cached topics that
 * filter matches, found through a topic index (the one retained messages use, searched by filter),
 * and a full cache drops its oldest topic, not all of them.
 */
final class RouteCache {
    private final RetainedIndex<Route> byLevels = new RetainedIndex<>();
    private final LinkedHashMap<String, Route> byTopic;

    RouteCache(int limit) {
        this.byTopic = new LinkedHashMap<>(16, 0.75f) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Route> eldest) {
                if (size() <= limit) return false;
                byLevels.remove(eldest.getKey());
                return true;
            }
        };
    }

    Route get(String topic) {
        return byTopic.get(topic);
    }

    void put(String topic, Route route) {
        byLevels.put(topic, route);
        byTopic.put(topic, route);
    }

    /** Drops every cached topic the filter (not a shared one: its filter part) matches. */
    void invalidate(String filter) {
        byLevels.forEachMatching(filter, (topic, route) -> {
            byLevels.remove(topic);
            byTopic.remove(topic);
        });
    }

    void clear() {
        byTopic.keySet().forEach(byLevels::remove);
        byTopic.clear();
    }

    int size() {
        return byTopic.size();
    }
}
