package io.pekquitto.shards.session;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a shard takes up a new ring of homes (docs/cluster.md, Homes across nodes), in two rounds, so that a home
 * orders no claim before it holds every record of its client ids' holders. Round 1: each shard hands the
 * records it holds as home to their new homes, then says it adopted the ring ({@code adopted}). Round 2: once a
 * shard heard round 1 from every shard of the ring, everything any of them handed on before (under whatever
 * ring they had) has reached it and been passed on, and it says it settled ({@code settled}). A home orders
 * claims again once every shard of the ring settled; until then its claims and ends wait here, in order. A
 * round's word from a shard still on another ring is kept for when this shard takes that ring up. Plain rules.
 */
final class HomeHandoff {
    /** The rings whose early words are kept, past which the oldest are forgotten (rings of a membership in flux). */
    private static final int RINGS_KEPT = 16;

    /** Stands, among the shards not settled, for the cluster's ring not taken up yet. */
    private static final int CLUSTER = -1;

    private long epoch;
    private final Set<Integer> notAdopted = new HashSet<>();
    private final Set<Integer> notSettled = new HashSet<>();
    private boolean settledSent = true;
    private final Map<Long, Set<Integer>> adoptedEarly = early();
    private final Map<Long, Set<Integer>> settledEarly = early();
    private final List<SessionTransfer> waiting = new ArrayList<>();
    /** Claims and ends passed on to this shard for client ids it is not home of: until its ring changes. */
    private final List<SessionTransfer> strays = new ArrayList<>();

    private static Map<Long, Set<Integer>> early() {
        return new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Set<Integer>> eldest) {
                return size() > RINGS_KEPT;
            }
        };
    }

    /**
     * The ring this shard starts with: settled at once (no home handed anything over before it), or, on a node of
     * a cluster ({@code awaitCluster}), not before the ring with the other nodes' shards is taken up: until then
     * a claim cannot know whether another node holds the session.
     */
    void start(long ringEpoch, boolean awaitCluster) {
        epoch = ringEpoch;
        notAdopted.clear();
        notSettled.clear();
        if (awaitCluster) notSettled.add(CLUSTER);
        settledSent = true;
    }

    /** This shard took ring {@code ringEpoch} up, whose other shards are {@code peers}; it has sent round 1. */
    void adopt(long ringEpoch, Collection<Integer> peers) {
        epoch = ringEpoch;
        notAdopted.clear();
        notAdopted.addAll(peers);
        notSettled.clear();
        notSettled.addAll(peers);
        settledSent = false;
        var adopted = adoptedEarly.remove(ringEpoch);
        if (adopted != null) notAdopted.removeAll(adopted);
        var settled = settledEarly.remove(ringEpoch);
        if (settled != null) notSettled.removeAll(settled);
    }

    long epoch() { return epoch; }

    /** Round 1 from {@code peer} for ring {@code ringEpoch}. */
    void adopted(int peer, long ringEpoch) {
        if (ringEpoch == epoch) {
            notAdopted.remove(peer);
        } else {
            adoptedEarly.computeIfAbsent(ringEpoch, e -> new HashSet<>()).add(peer);
        }
    }

    /** Round 2 from {@code peer} for ring {@code ringEpoch}. */
    void settled(int peer, long ringEpoch) {
        if (ringEpoch == epoch) {
            notSettled.remove(peer);
        } else {
            settledEarly.computeIfAbsent(ringEpoch, e -> new HashSet<>()).add(peer);
        }
    }

    /** Whether this shard must say now that it settled: every shard of the ring adopted it (once per ring). */
    boolean settleNow() {
        if (settledSent || !notAdopted.isEmpty()) return false;
        settledSent = true;
        return true;
    }

    /** Whether this shard orders claims as a home: every shard of its ring settled it. */
    boolean serving() {
        return settledSent && notSettled.isEmpty();
    }

    /** A claim or an end for a client id homed here, until {@link #serving}. */
    void hold(SessionTransfer message) {
        waiting.add(message);
    }

    /** What waited, in order, for the home to serve again. */
    List<SessionTransfer> takeWaiting() {
        var taken = new ArrayList<>(waiting);
        waiting.clear();
        return taken;
    }

    /** A claim or an end passed on here by a shard whose ring made this its home, while this shard's does not. */
    void stray(SessionTransfer message) {
        strays.add(message);
    }

    /** The strays, for this shard's new ring to send on or order. */
    List<SessionTransfer> takeStrays() {
        var taken = new ArrayList<>(strays);
        strays.clear();
        return taken;
    }
}
