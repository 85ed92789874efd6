package io.pekquitto.shards.routes;

import io.pekquitto.routing.SubscriptionTrie;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which shards have subscribers for which topic filters: the local count of subscribers per filter
 * (announced to peers when it goes from 0 to 1 and back), and the filters announced by peers, in a trie
 * keyed by shard index. A publish is forwarded only to the shards whose filters match its topic.
 */
public final class Interest {
    private final Map<String, Integer> localCounts = new HashMap<>();
    private final SubscriptionTrie<Integer, Boolean> remote = new SubscriptionTrie<>();
    /** Filters per peer, to drop a peer's interest when it restarts. */
    private final Map<Integer, Map<String, Boolean>> remoteByShard = new HashMap<>();

    /** A local subscriber to the filter appeared; true if it is the first (announce it). */
    public boolean addLocal(String filter) {
        return localCounts.merge(filter, 1, Integer::sum) == 1;
    }

    /** A local subscriber to the filter left; true if it was the last (announce the removal). */
    public boolean removeLocal(String filter) {
        var count = localCounts.get(filter);
        if (count == null) return false;
        if (count == 1) {
            localCounts.remove(filter);
            return true;
        }
        localCounts.put(filter, count - 1);
        return false;
    }

    public Set<String> localFilters() { return localCounts.keySet(); }

    public void addRemote(String filter, int shard) {
        remote.put(filter, shard, Boolean.TRUE);
        remoteByShard.computeIfAbsent(shard, s -> new HashMap<>()).put(filter, Boolean.TRUE);
    }

    public void removeRemote(String filter, int shard) {
        remote.remove(filter, shard);
        var filters = remoteByShard.get(shard);
        if (filters != null) filters.remove(filter);
    }

    /** Drops everything a peer announced (it restarted and will announce again). */
    public void forgetShard(int shard) {
        var filters = remoteByShard.remove(shard);
        if (filters != null) for (var filter : filters.keySet()) remote.remove(filter, shard);
    }

    /** Marks, in {@code into}, every peer with a subscriber whose filter matches the topic. */
    public void remoteShardsFor(String topic, boolean[] into) {
        remote.forEachMatch(topic, (filter, shard, ignored) -> into[shard] = true);
    }
}
