package io.pekquitto.shards.routes;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.routing.SubscriptionTrie;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a published topic goes, as one shard knows it: its own clients' subscriptions (a trie), the
 * peers that announced a matching filter ({@link Interest}), and the shared subscriptions of every
 * shard ({@link SharedGroups}). {@link #routeFor} computes a topic's {@link Route} once and caches it;
 * every change drops from the cache exactly the topics its filter matches. Local changes return the
 * {@link RouteChange} the peers must hear of; a peer's change comes in through {@link #applyPeerChange}.
 * Plain and single-threaded: the shard owns it.
 */
public final class TopicRoutes {
    /** Cached topics at most: beyond it the oldest goes. */
    static final int CACHE_LIMIT = 10_000;

    private final SubscriptionTrie<String, SubscriptionEntry> local = new SubscriptionTrie<>();
    private final Interest interest = new Interest();
    private final SharedGroups shared = new SharedGroups();
    /**
     * Clients attached here whose connection said they are not READY (window full, not acknowledging,
     * socket congested): a shared subscription they make now starts so. A client not attached here
     * takes no work: it is STALLED.
     */
    private final Map<String, Availability> notReadyHere = new HashMap<>();
    private final RouteCache cache;
    private int self;
    private boolean[] peerScratch = new boolean[1];

    /** A local subscription's outcome: the entry it replaced, if any, and what peers must hear. */
    public record Subscribed(Optional<SubscriptionEntry> previous, Optional<RouteChange> announce) {}

    public TopicRoutes() {
        this(CACHE_LIMIT);
    }

    TopicRoutes(int cacheLimit) {
        this.cache = new RouteCache(cacheLimit);
    }

    /** This shard's index among {@code shards}; routes computed before are dropped. */
    public void joinMesh(int selfIndex, int shards) {
        self = selfIndex;
        peerScratch = new boolean[shards];
        cache.clear();
    }

    /** What the topic matches; the same instance until a change touches the topic. */
    public Route routeFor(String topic) {
        var route = cache.get(topic);
        if (route != null) return route;
        var matches = new ArrayList<Route.Match>(2);
        local.forEachMatch(topic, (filter, clientId, entry) -> matches.add(new Route.Match(clientId, entry)));
        var groups = new ArrayList<SharedGroups.Group>(0);
        shared.forEachMatch(topic, groups::add);
        route = new Route(List.copyOf(matches), uniqueClients(matches), peersFor(topic), List.copyOf(groups));
        cache.put(topic, route);
        return route;
    }

    private static boolean uniqueClients(List<Route.Match> matches) {
        if (matches.size() < 2) return true;
        var clients = new HashSet<String>();
        for (var match : matches) if (!clients.add(match.clientId())) return false;
        return true;
    }

    private int[] peersFor(String topic) {
        if (peerScratch.length < 2) return new int[0];
        interest.remoteShardsFor(topic, peerScratch);
        int count = 0;
        for (boolean peer : peerScratch) if (peer) count++;
        var peers = new int[count];
        for (int shard = 0, i = 0; shard < peerScratch.length; shard++) if (peerScratch[shard]) peers[i++] = shard;
        Arrays.fill(peerScratch, false);
        return peers;
    }

    /** A SUBSCRIBE of a client attached here: adds or replaces its subscription, shared ({@code $share/g/f}) or not. */
    public Subscribed subscribe(String clientId, String filter, SubscriptionEntry entry) {
        return subscribe(clientId, filter, entry, true);
    }

    /**
     * Adds or replaces a client's subscription; {@code attached}: its session has a connection here (a
     * SUBSCRIBE), or not yet (a session that arrives or is recovered: as a member it takes no work until
     * a connection has it, {@link #attached}).
     */
    public Subscribed subscribe(String clientId, String filter, SubscriptionEntry entry, boolean attached) {
        if (TopicFilter.isShared(filter)) {
            var group = TopicFilter.shareGroup(filter);
            var topicFilter = TopicFilter.sharedFilterTopic(filter);
            var existing = shared.get(group, topicFilter);
            var previous = existing == null ? null : existing.member(clientId);
            var member = new SharedGroups.Member(clientId, self, entry,
                    attached ? notReadyHere.getOrDefault(clientId, Availability.READY) : Availability.STALLED);
            shared.join(group, topicFilter, member);
            cache.invalidate(topicFilter);
            return new Subscribed(Optional.ofNullable(previous).map(SharedGroups.Member::entry),
                    Optional.of(new RouteChange.Joined(group, topicFilter, member)));
        }
        var previous = local.put(filter, clientId, entry);
        cache.invalidate(filter);
        boolean first = previous == null && interest.addLocal(filter);
        return new Subscribed(Optional.ofNullable(previous),
                first ? Optional.of(new RouteChange.InterestAdded(filter)) : Optional.empty());
    }

    /** Removes a client's subscription; returns what peers must hear (nothing if it had none). */
    public Optional<RouteChange> unsubscribe(String clientId, String filter) {
        if (TopicFilter.isShared(filter)) {
            var group = TopicFilter.shareGroup(filter);
            var topicFilter = TopicFilter.sharedFilterTopic(filter);
            shared.leave(group, topicFilter, clientId);
            cache.invalidate(topicFilter);
            return Optional.of(new RouteChange.Left(group, topicFilter, clientId));
        }
        if (local.remove(filter, clientId) == null) return Optional.empty();
        cache.invalidate(filter);
        return interest.removeLocal(filter) ? Optional.of(new RouteChange.InterestRemoved(filter)) : Optional.empty();
    }

    // ---- how soon a member can take work (SharedGroups)

    /** Whether the client is a member of a shared group: only then does its connection say how soon it can take work. */
    public boolean isSharedMember(String clientId) {
        return shared.isMember(clientId);
    }

    /** A connection here has the client's session: it can take work until it says otherwise. */
    public Optional<RouteChange> attached(String clientId) {
        return connectionSays(clientId, Availability.READY);
    }

    /** The client's connection here says how soon it can take work now: what peers must hear, if it is a member. */
    public Optional<RouteChange> connectionSays(String clientId, Availability now) {
        if (now == Availability.READY) {
            notReadyHere.remove(clientId);
        } else {
            notReadyHere.put(clientId, now);
        }
        return availability(clientId, now);
    }

    /** The client's connection let its session go (offline, ended or moving): it takes no work here. */
    public Optional<RouteChange> detached(String clientId) {
        notReadyHere.remove(clientId);
        return availability(clientId, Availability.STALLED);
    }

    private Optional<RouteChange> availability(String clientId, Availability now) {
        return shared.availability(clientId, self, now) ? Optional.of(new RouteChange.Available(clientId, now)) : Optional.empty();
    }

    /** A change announced by a peer. */
    public void applyPeerChange(int peer, RouteChange change) {
        if (peer >= peerScratch.length) peerScratch = new boolean[peer + 1];  // a shard of a node that joined
        if (change instanceof RouteChange.InterestAdded added) {
            interest.addRemote(added.filter(), peer);
            cache.invalidate(added.filter());
        } else if (change instanceof RouteChange.InterestRemoved removed) {
            interest.removeRemote(removed.filter(), peer);
            cache.invalidate(removed.filter());
        } else if (change instanceof RouteChange.Joined joined) {
            shared.join(joined.group(), joined.filter(), joined.member());
            cache.invalidate(joined.filter());
        } else if (change instanceof RouteChange.Left left) {
            shared.leave(left.group(), left.filter(), left.clientId());
            cache.invalidate(left.filter());
        } else if (change instanceof RouteChange.Available available) {
            shared.availability(available.clientId(), peer, available.availability());  // routes hold the groups: nothing cached changes
        } else {
            throw new IllegalStateException("unhandled route change " + change);  // a new variant is handled here
        }
    }

    /** A peer restarted with empty state: what it announced is gone (it announces again). */
    public void forgetPeer(int peer) {
        interest.forgetShard(peer);
        shared.forgetShard(peer);
        cache.clear();
    }

    /** Everything a (re)started peer must hear of this shard: its filters and its shared members. */
    public List<RouteChange> announcements() {
        var changes = new ArrayList<RouteChange>();
        interest.localFilters().forEach(filter -> changes.add(new RouteChange.InterestAdded(filter)));
        shared.forEachMemberOn(self, (group, member) -> changes.add(new RouteChange.Joined(group.name(), group.filter(), member)));
        return changes;
    }

    /** The group of a shared filter as clients write it ({@code $share/g/f}), or null if it has no members. */
    public SharedGroups.Group sharedGroup(String sharedFilter) {
        return shared.ofSharedFilter(sharedFilter);
    }

    int cachedTopics() {
        return cache.size();
    }
}
