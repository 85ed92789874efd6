package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where a topic goes, from one shard's view: its own subscriptions, its peers' interest, shared groups; cached. */
class TopicRoutesTest {
    private static final SubscriptionEntry QOS1 = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);

    private final TopicRoutes routes = new TopicRoutes();

    private static List<String> clients(Route route) {
        return route.local().stream().map(Route.Match::clientId).sorted().toList();
    }

    @Test
    void wildcardsMatchByTheTopicRules() {  // 4.7.1
        routes.subscribe("hash", "a/#", QOS1);
        routes.subscribe("plus", "a/+/c", QOS1);
        routes.subscribe("exact", "a/b/c", QOS1);
        assertEquals(List.of("exact", "hash", "plus"), clients(routes.routeFor("a/b/c")));
        assertEquals(List.of("hash"), clients(routes.routeFor("a")), "'#' also matches its parent level");
        assertEquals(List.of(), clients(routes.routeFor("b/a")));
    }

    @Test
    void topicsStartingWithDollarAreNotMatchedByALeadingWildcard() {  // [MQTT-4.7.2-1]
        routes.subscribe("all", "#", QOS1);
        routes.subscribe("plus", "+/broker", QOS1);
        routes.subscribe("sys", "$SYS/#", QOS1);
        assertEquals(List.of("sys"), clients(routes.routeFor("$SYS/broker")));
    }

    @Test
    void aRouteIsCachedUntilAChangeTouchesItsTopic() {
        routes.subscribe("c1", "a/+", QOS1);
        var route = routes.routeFor("a/x");
        assertSame(route, routes.routeFor("a/x"), "cached");
        routes.subscribe("c2", "a/x", QOS1);
        var changed = routes.routeFor("a/x");
        assertNotSame(route, changed);
        assertEquals(List.of("c1", "c2"), clients(changed));
    }

    @Test
    void aChangeLeavesTheRoutesOfTopicsItsFilterDoesNotMatch() {  // targeted invalidation
        routes.subscribe("c1", "b/#", QOS1);
        var untouched = routes.routeFor("b/c");
        var touched = routes.routeFor("a/x");
        routes.subscribe("c2", "a/+", QOS1);
        assertSame(untouched, routes.routeFor("b/c"), "a/+ cannot match b/c: its route stays cached");
        assertNotSame(touched, routes.routeFor("a/x"));
        routes.unsubscribe("c2", "a/+");
        assertSame(untouched, routes.routeFor("b/c"));
        assertEquals(List.of(), clients(routes.routeFor("a/x")));
    }

    @Test
    void theCacheIsBoundedAndDropsItsOldestTopicsNotAll() {
        var small = new TopicRoutes(100);
        small.subscribe("c", "t/#", QOS1);
        var recent = small.routeFor("t/0");
        for (int i = 1; i <= 250; i++) small.routeFor("t/" + i);
        assertEquals(100, small.cachedTopics());
        var latest = small.routeFor("t/250");
        assertSame(latest, small.routeFor("t/250"), "the newest stay");
        assertNotSame(recent, small.routeFor("t/0"), "the oldest went");
    }

    @Test
    void theDefaultCacheHoldsTenThousandTopics() {
        for (int i = 0; i < TopicRoutes.CACHE_LIMIT + 500; i++) routes.routeFor("t/" + i);
        assertEquals(TopicRoutes.CACHE_LIMIT, routes.cachedTopics());
    }

    @Test
    void theFirstSubscriptionToAFilterIsAnnouncedToPeersTheSecondIsNot() {
        routes.joinMesh(0, 2);
        assertEquals(Optional.of(new RouteChange.InterestAdded("a/#")), routes.subscribe("c1", "a/#", QOS1).announce());
        assertEquals(Optional.empty(), routes.subscribe("c2", "a/#", QOS1).announce());
        assertEquals(Optional.empty(), routes.unsubscribe("c1", "a/#"), "c2 still needs it");
        assertEquals(Optional.of(new RouteChange.InterestRemoved("a/#")), routes.unsubscribe("c2", "a/#"));
        assertEquals(Optional.empty(), routes.unsubscribe("c2", "a/#"), "nothing to remove");
    }

    @Test
    void aResubscriptionReplacesTheEntryAndReturnsThePreviousOne() {  // [MQTT-3.8.4-3]
        var qos0 = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_MOST_ONCE), 0);
        assertEquals(Optional.empty(), routes.subscribe("c", "a", qos0).previous());
        assertEquals(Optional.of(qos0), routes.subscribe("c", "a", QOS1).previous());
        assertEquals(List.of(QOS1), routes.routeFor("a").local().stream().map(Route.Match::entry).toList(), "one subscription, replaced");
    }

    @Test
    void peersWithAMatchingFilterAreInTheRoute() {
        routes.joinMesh(0, 3);
        routes.applyPeerChange(2, new RouteChange.InterestAdded("a/+"));
        assertArrayEquals(new int[] {2}, routes.routeFor("a/b").remoteShards());
        assertArrayEquals(new int[0], routes.routeFor("b").remoteShards());
        routes.applyPeerChange(2, new RouteChange.InterestRemoved("a/+"));
        assertArrayEquals(new int[0], routes.routeFor("a/b").remoteShards(), "the change dropped the cached route");
    }

    @Test
    void aRestartedPeerIsForgotten() {
        routes.joinMesh(0, 2);
        routes.applyPeerChange(1, new RouteChange.InterestAdded("#"));
        routes.routeFor("x");
        routes.forgetPeer(1);
        assertArrayEquals(new int[0], routes.routeFor("x").remoteShards());
    }

    @Test
    void aSharedSubscriptionJoinsAGroupRoutedByItsFilterPart() {  // 4.8.2
        routes.joinMesh(0, 2);
        var subscribed = routes.subscribe("m", "$share/g/a/+", QOS1);
        assertTrue(subscribed.announce().orElseThrow() instanceof RouteChange.Joined, "every shard knows every member");
        var route = routes.routeFor("a/b");
        assertEquals(List.of(), route.local(), "not an ordinary subscription");
        assertEquals(1, route.groups().size());
        assertEquals("$share/g/a/+", route.groups().get(0).sharedFilter(), "computed once with the group");
        routes.unsubscribe("m", "$share/g/a/+");
        assertTrue(routes.routeFor("a/b").groups().stream().allMatch(group -> group.members().isEmpty()), "the member left");
    }

    @Test
    void announcementsRepeatEverythingARestartedPeerMustKnow() {
        routes.joinMesh(1, 2);
        routes.subscribe("c", "a/#", QOS1);
        routes.subscribe("m", "$share/g/b", QOS1);
        var changes = routes.announcements();
        assertTrue(changes.contains(new RouteChange.InterestAdded("a/#")));
        assertTrue(changes.stream().anyMatch(c -> c instanceof RouteChange.Joined joined && joined.group().equals("g")));
    }
}
