package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A shard as the will keeper of clients connected to other nodes (docs/cluster.md, Wills across nodes): the wills
 * their holders told it of ({@link KeepWill}), by holder, until the holder forgets them ({@link ForgetWill}) or its
 * node is lost. Then each is published once, and at once: the session is lost with its node, and a will goes when
 * its session ends if that comes before its Will Delay Interval (3.1.3.2.2). Holds no more than the holders hold,
 * connected clients with wills and sessions waiting out a will's delay. Plain rules.
 */
final class WillKeeper {
    private record Kept(long token, Message will) {}

    /** By holder shard, then client id: one holder holds one session of a client id, and tells its changes in order. */
    private final Map<Integer, Map<String, Kept>> byHolder = new HashMap<>();

    /** A holder's will, in place of what it told before of that client id (a newer claim's). */
    void keep(KeepWill keep) {
        byHolder.computeIfAbsent(keep.shard(), holder -> new HashMap<>()).put(keep.clientId(), new Kept(keep.token(), keep.will()));
    }

    /** Forgets a holder's will, unless it told of a newer claim's since. */
    void forget(ForgetWill forget) {
        var kept = byHolder.get(forget.shard());
        if (kept == null) return;
        var will = kept.get(forget.clientId());
        if (will != null && will.token() == forget.token()) kept.remove(forget.clientId());
        if (kept.isEmpty()) byHolder.remove(forget.shard());
    }

    /**
     * The holders in {@code gone} are gone with their node: their wills to publish now, one per client id (a client id
     * has one connection in the cluster [MQTT-3.1.4-3]; a second is a holder's that forgot it, its word lost with the
     * node), each with its lifetime from now (3.1.3.2.4), and forgotten. Those in {@code left} are of a node that left
     * the cluster: it published them itself as it closed their connections (or kept their sessions): forgotten only.
     */
    List<Map.Entry<String, Message>> holdersGone(Set<Integer> gone, Set<Integer> left, long now) {
        var published = new ArrayList<Map.Entry<String, Message>>();
        var clientIds = new HashSet<String>();
        for (int holder : gone) {
            var kept = byHolder.remove(holder);
            if (kept == null || left.contains(holder)) continue;
            kept.forEach((clientId, will) -> {
                if (clientIds.add(clientId)) published.add(Map.entry(clientId, publishedAt(will.will(), now)));
            });
        }
        return published;
    }

    /** A holder restarted with empty state: what it told is void (its connections were lost with it). */
    void holderRestarted(int shard) {
        byHolder.remove(shard);
    }

    /** How many wills are kept here. */
    int size() {
        int size = 0;
        for (var kept : byHolder.values()) size += kept.size();
        return size;
    }

    /** The will as published at {@code now}, its Message Expiry Interval running from then, as for a delayed one. */
    private static Message publishedAt(Message will, long now) {
        return new PendingWill(will, will.receivedAt(), now).messageAt(now);
    }
}
