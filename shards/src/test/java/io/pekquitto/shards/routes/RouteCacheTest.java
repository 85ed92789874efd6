package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RouteCacheTest {
    private final RouteCache cache = new RouteCache(TopicRoutes.CACHE_LIMIT);

    private static Route route() {
        return new Route(List.of(), true, new int[0], List.of());
    }

    private void cacheAll(String... topics) {
        for (var topic : topics) cache.put(topic, route());
    }

    @Test
    void invalidatingAFilterDropsExactlyTheTopicsItMatches() {
        cacheAll("a/x", "a/y", "a/x/y", "a", "b/c");
        cache.invalidate("a/+");
        assertNull(cache.get("a/x"));
        assertNull(cache.get("a/y"));
        assertNotNull(cache.get("a/x/y"), "+ is one level");
        assertNotNull(cache.get("a"));
        assertNotNull(cache.get("b/c"));
        assertEquals(3, cache.size());
    }

    @Test
    void invalidatingAHashFilterDropsTheParentTopicToo() {  // 4.7.1.2: "a/#" matches "a"
        cacheAll("a", "a/b/c", "ab");
        cache.invalidate("a/#");
        assertNull(cache.get("a"));
        assertNull(cache.get("a/b/c"));
        assertNotNull(cache.get("ab"));
    }

    @Test
    void invalidatingALeadingWildcardLeavesDollarTopics() {  // [MQTT-4.7.2-1]: '#' never routes "$SYS/x"
        cacheAll("$SYS/x", "x");
        cache.invalidate("#");
        assertNotNull(cache.get("$SYS/x"));
        assertNull(cache.get("x"));
        cache.invalidate("$SYS/#");
        assertNull(cache.get("$SYS/x"));
    }

    @Test
    void anExactFilterDropsOnlyItsTopic() {
        cacheAll("a/b", "a/b/c", "a");
        cache.invalidate("a/b");
        assertNull(cache.get("a/b"));
        assertEquals(2, cache.size());
    }

    @Test
    void aFullCacheDropsItsOldestTopicOnly() {
        var small = new RouteCache(3);
        for (var topic : List.of("1", "2", "3", "4")) small.put(topic, route());
        assertEquals(3, small.size());
        assertNull(small.get("1"));
        assertNotNull(small.get("2"));
        assertNotNull(small.get("4"));
    }

    @Test
    void moreTopicsThanTheBoundKeepTheSizeWithinIt() {
        for (int i = 0; i < TopicRoutes.CACHE_LIMIT * 2; i++) cache.put("t/" + i, route());
        assertTrue(cache.size() <= TopicRoutes.CACHE_LIMIT, "size " + cache.size());
        assertNotNull(cache.get("t/" + (TopicRoutes.CACHE_LIMIT * 2 - 1)), "the newest stays");
        cache.invalidate("t/+");
        assertEquals(0, cache.size());
    }

    @Test
    void replacingARouteKeepsOneEntry() {
        cache.put("a", route());
        var newer = route();
        cache.put("a", newer);
        assertEquals(1, cache.size());
        assertSame(newer, cache.get("a"));
    }

    @Test
    void clearDropsEverything() {
        cacheAll("a", "b/c", "$SYS/x");
        cache.clear();
        assertEquals(0, cache.size());
        assertNull(cache.get("a"));
        cache.put("a", route());
        assertNotNull(cache.get("a"), "usable after a clear");
    }
}
