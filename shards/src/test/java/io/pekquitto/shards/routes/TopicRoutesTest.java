package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TopicRoutesTest {
    private static final SubscriptionEntry QOS1 = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);
    private static final SubscriptionEntry QOS2 = new SubscriptionEntry(SubscriptionOptions.of(QoS.EXACTLY_ONCE), 7);

    private final TopicRoutes routes = new TopicRoutes();

    private Set<String> localClients(String topic) {
        return routes.routeFor(topic).local().stream().map(Route.Match::clientId).collect(Collectors.toSet());
    }

    // ---- matching (4.7)

    @Test
    void hashMatchesTheParentLevel() {  // 4.7.1.2: "sport/#" also matches "sport"
        routes.subscribe("c", "sport/#", QOS1);
        assertEquals(Set.of("c"), localClients("sport"));
        assertEquals(Set.of("c"), localClients("sport/tennis/player1"));
        assertEquals(Set.of(), localClients("sports"));
    }

    @Test
    void plusMatchesExactlyOneLevel() {  // 4.7.1.3
        routes.subscribe("c", "a/+", QOS1);
        assertEquals(Set.of("c"), localClients("a/x"));
        assertEquals(Set.of("c"), localClients("a/"), "an empty level is a level");
        assertEquals(Set.of(), localClients("a"));
        assertEquals(Set.of(), localClients("a/x/y"));
    }

    @Test
    void leadingWildcardsDoNotMatchDollarTopics() {  // [MQTT-4.7.2-1]
        routes.subscribe("all", "#", QOS1);
        routes.subscribe("plus", "+/monitor/#", QOS1);
        routes.subscribe("sys", "$SYS/#", QOS1);
        assertEquals(Set.of("sys"), localClients("$SYS/monitor/clients"));
        assertEquals(Set.of("all", "plus"), localClients("SYS/monitor/clients"));
    }

    @Test
    void aClientWithOverlappingSubscriptionsMakesTheRouteNotUnique() {  // aggregation needed, [MQTT-3.3.4-2 (5.0)]
        routes.subscribe("c", "a/#", QOS1);
        assertTrue(routes.routeFor("a/b").uniqueClients());
        routes.subscribe("d", "a/b", QOS1);
        assertTrue(routes.routeFor("a/b").uniqueClients(), "two clients, one subscription each");
        routes.subscribe("c", "a/+", QOS2);
        var route = routes.routeFor("a/b");
        assertEquals(3, route.local().size());
        assertFalse(route.uniqueClients());
    }

    // ---- the cache and its targeted invalidation

    @Test
    void aRouteIsReusedUntilAChangeTouchesIt() {
        routes.subscribe("c", "a/b", QOS1);
        var route = routes.routeFor("a/b");
        assertSame(route, routes.routeFor("a/b"));
    }

    @Test
    void subscribingInvalidatesOnlyTheCachedTopicsTheFilterMatches() {
        var other = routes.routeFor("b/c");
        var before = routes.routeFor("a/x");
        routes.subscribe("c", "a/+", QOS1);
        assertSame(other, routes.routeFor("b/c"), "b/c is not matched by a/+: its route stays");
        var after = routes.routeFor("a/x");
        assertNotSame(before, after);
        assertEquals(List.of(new Route.Match("c", QOS1)), after.local());
    }

    @Test
    void unsubscribingInvalidatesTheTopicsTheFilterMatches() {
        routes.subscribe("c", "a/#", QOS1);
        var other = routes.routeFor("b");
        assertEquals(Set.of("c"), localClients("a"));
        routes.unsubscribe("c", "a/#");
        assertEquals(Set.of(), localClients("a"));
        assertSame(other, routes.routeFor("b"));
    }

    @Test
    void aResubscribeReplacesTheOptionsInTheRoute() {  // [MQTT-3.8.4-3]
        routes.subscribe("c", "a", QOS1);
        routes.routeFor("a");
        var subscribed = routes.subscribe("c", "a", QOS2);
        assertEquals(Optional.of(QOS1), subscribed.previous());
        assertEquals(List.of(new Route.Match("c", QOS2)), routes.routeFor("a").local());
    }

    @Test
    void theCacheStaysWithinItsBound() {
        for (int i = 0; i < TopicRoutes.CACHE_LIMIT + 500; i++) routes.routeFor("t/" + i);
        assertTrue(routes.cachedTopics() <= TopicRoutes.CACHE_LIMIT, "cached: " + routes.cachedTopics());
    }

    // ---- what peers hear

    @Test
    void onlyTheFirstSubscriberOfAFilterIsAnnounced() {
        var first = routes.subscribe("c", "a/+", QOS1);
        assertEquals(Optional.empty(), first.previous());
        assertEquals(Optional.of(new RouteChange.InterestAdded("a/+")), first.announce());
        assertEquals(Optional.empty(), routes.subscribe("d", "a/+", QOS1).announce());
        assertEquals(Optional.empty(), routes.subscribe("c", "a/+", QOS2).announce(), "a replacement is no new interest");
    }

    @Test
    void onlyTheLastUnsubscribeOfAFilterIsAnnounced() {
        routes.subscribe("c", "a/+", QOS1);
        routes.subscribe("d", "a/+", QOS1);
        assertEquals(Optional.empty(), routes.unsubscribe("c", "a/+"));
        assertEquals(Optional.empty(), routes.unsubscribe("c", "a/+"), "c had no subscription left");
        assertEquals(Optional.of(new RouteChange.InterestRemoved("a/+")), routes.unsubscribe("d", "a/+"));
    }

    @Test
    void aPeersInterestRoutesMatchingTopicsToIt() {
        routes.joinMesh(0, 3);
        var cached = routes.routeFor("a/b");
        var other = routes.routeFor("x");
        routes.applyPeerChange(2, new RouteChange.InterestAdded("a/#"));
        assertArrayEquals(new int[] {2}, routes.routeFor("a/b").remoteShards(), "the cached route was dropped");
        assertArrayEquals(new int[0], cached.remoteShards());
        assertSame(other, routes.routeFor("x"));
        routes.applyPeerChange(2, new RouteChange.InterestRemoved("a/#"));
        assertArrayEquals(new int[0], routes.routeFor("a/b").remoteShards());
    }

    @Test
    void aRestartedPeersInterestAndMembersAreForgotten() {
        routes.joinMesh(0, 3);
        routes.applyPeerChange(1, new RouteChange.InterestAdded("a"));
        routes.applyPeerChange(2, new RouteChange.InterestAdded("a"));
        routes.applyPeerChange(1, new RouteChange.Joined("g", "a", new SharedGroups.Member("m", 1, QOS1)));
        routes.routeFor("a");
        routes.forgetPeer(1);
        var route = routes.routeFor("a");
        assertArrayEquals(new int[] {2}, route.remoteShards());
        assertEquals(List.of(), route.groups());
    }

    @Test
    void announcementsHoldTheLocalFiltersAndOwnMembersOnly() {
        routes.joinMesh(1, 3);
        routes.subscribe("c", "a/+", QOS1);
        routes.subscribe("d", "a/+", QOS1);
        routes.subscribe("c", "$share/g/jobs", QOS1);
        routes.applyPeerChange(2, new RouteChange.Joined("g", "jobs", new SharedGroups.Member("p", 2, QOS1)));
        routes.applyPeerChange(2, new RouteChange.InterestAdded("b"));
        assertEquals(Set.of(new RouteChange.InterestAdded("a/+"),
                        new RouteChange.Joined("g", "jobs", new SharedGroups.Member("c", 1, QOS1))),
                Set.copyOf(routes.announcements()));
    }

    // ---- shared subscriptions (4.8.2)

    @Test
    void aSharedSubscriptionJoinsItsGroupNotTheLocalSubscriptions() {
        routes.joinMesh(1, 2);
        var cached = routes.routeFor("jobs/1");
        var subscribed = routes.subscribe("c", "$share/g/jobs/+", QOS1);
        var member = new SharedGroups.Member("c", 1, QOS1);
        assertEquals(Optional.of(new RouteChange.Joined("g", "jobs/+", member)), subscribed.announce());
        var route = routes.routeFor("jobs/1");
        assertNotSame(cached, route);
        assertEquals(List.of(), route.local(), "a shared subscription is no local subscription");
        assertEquals(1, route.groups().size());
        assertEquals("$share/g/jobs/+", route.groups().get(0).sharedFilter());
        assertSame(route.groups().get(0), routes.sharedGroup("$share/g/jobs/+"));
    }

    @Test
    void aSharedResubscribeReturnsThePreviousEntry() {  // [MQTT-3.8.4-3]
        assertEquals(Optional.empty(), routes.subscribe("c", "$share/g/t", QOS1).previous());
        assertEquals(Optional.of(QOS1), routes.subscribe("c", "$share/g/t", QOS2).previous());
        assertEquals(QOS2, routes.sharedGroup("$share/g/t").member("c").entry());
    }

    @Test
    void theLastSharedMemberLeavingRemovesTheGroupFromTheRoute() {
        routes.subscribe("c", "$share/g/t", QOS1);
        assertEquals(1, routes.routeFor("t").groups().size());
        assertEquals(Optional.of(new RouteChange.Left("g", "t", "c")), routes.unsubscribe("c", "$share/g/t"));
        assertNull(routes.sharedGroup("$share/g/t"));
        assertEquals(List.of(), routes.routeFor("t").groups());
    }

    // ---- how soon a shared member can take work (SharedGroups, issue 24)

    private Availability availabilityOf(String clientId) {
        return routes.sharedGroup("$share/g/t").member(clientId).availability();
    }

    @Test
    void aMembersChangeIsAnnouncedOnlyWhenItChanges() {  // transitions, never per message
        routes.joinMesh(1, 2);
        assertEquals(Optional.empty(), routes.connectionSays("c", Availability.BUSY), "not a member: nothing to tell");
        routes.subscribe("c", "$share/g/t", QOS1);
        assertEquals(Availability.BUSY, availabilityOf("c"), "its connection said it was busy before it joined");
        assertEquals(Optional.empty(), routes.connectionSays("c", Availability.BUSY));
        assertEquals(Optional.of(new RouteChange.Available("c", Availability.STALLED)),
                routes.connectionSays("c", Availability.STALLED));
        assertEquals(Optional.of(new RouteChange.Available("c", Availability.READY)), routes.connectionSays("c", Availability.READY));
    }

    @Test
    void aSessionWithoutItsConnectionJoinsStalledAndTakesWorkOnceAttached() {
        routes.subscribe("c", "$share/g/t", QOS1, false);  // a session that arrived or was recovered
        assertEquals(Availability.STALLED, availabilityOf("c"));
        assertEquals(Optional.of(new RouteChange.Available("c", Availability.READY)), routes.attached("c"));
        routes.connectionSays("c", Availability.BUSY);
        assertEquals(Optional.of(new RouteChange.Available("c", Availability.STALLED)), routes.detached("c"));
        routes.subscribe("c", "$share/g/u", QOS1, false);
        assertEquals(Availability.STALLED, routes.sharedGroup("$share/g/u").member("c").availability(),
                "its last connection's word went with it");
    }

    @Test
    void aPeersChangeAppliesToItsMembersAndIsAnnouncedAgainAfterARestart() {
        routes.joinMesh(0, 2);
        routes.applyPeerChange(1, new RouteChange.Joined("g", "t", new SharedGroups.Member("p", 1, QOS1)));
        routes.applyPeerChange(1, new RouteChange.Available("p", Availability.STALLED));
        assertEquals(Availability.STALLED, availabilityOf("p"));
        routes.applyPeerChange(0, new RouteChange.Available("p", Availability.READY));
        assertEquals(Availability.STALLED, availabilityOf("p"), "only the member's shard is believed");
        routes.subscribe("c", "$share/g/t", QOS1);
        routes.connectionSays("c", Availability.BUSY);
        assertEquals(List.of(new RouteChange.Joined("g", "t", new SharedGroups.Member("c", 0, QOS1, Availability.BUSY))),
                routes.announcements(), "a restarted peer learns it with the membership");
    }

    @Test
    void aPeersSharedMemberIsKnownWithItsShard() {
        routes.joinMesh(0, 2);
        routes.routeFor("t/x");
        routes.applyPeerChange(1, new RouteChange.Joined("g", "t/#", new SharedGroups.Member("p", 1, QOS1)));
        var group = routes.routeFor("t/x").groups().get(0);
        assertNotNull(group.member("p"));
        assertEquals(1, group.member("p").shard());
        routes.applyPeerChange(1, new RouteChange.Left("g", "t/#", "p"));
        assertEquals(List.of(), routes.routeFor("t/x").groups());
    }
}
