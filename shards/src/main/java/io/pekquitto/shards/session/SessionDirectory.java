package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The home shard's record of the latest claim of each client id whose home it is (the
 * {@link SessionTransfer} protocol). A client may connect on any shard, so its session may live on
 * any shard; its home orders the claims: each new claim is recorded here and takes the session from
 * the one recorded before it. Bounded by live sessions: the holder reports when a session ends.
 */
public final class SessionDirectory {
    private final Map<String, Successor> latest = new HashMap<>();

    /** The home shard of a client id: a stable hash, never negative ({@code Math.floorMod}). */
    public static int homeOf(String clientId, int shards) {
        return Math.floorMod(clientId.hashCode(), shards);
    }

    /** Records a claim and returns the claim it takes the session from, if there is one. */
    public Optional<Successor> claim(String clientId, Successor claim) {
        return Optional.ofNullable(latest.put(clientId, claim));
    }

    /** The session of claim {@code token} ended; ignored if a later claim has been recorded since. */
    public void ended(String clientId, long token) {
        var current = latest.get(clientId);
        if (current != null && current.token() == token) latest.remove(clientId);
    }

    /** Records a holder reported by a peer after this shard restarted, unless a claim came first. */
    public void restore(String clientId, Successor holder) {
        latest.putIfAbsent(clientId, holder);
    }

    /** Forgets every session a restarted shard held: they are gone with its state. */
    public void forgetShard(int shard) {
        latest.values().removeIf(claim -> claim.shard() == shard);
    }

    /** The latest claim recorded for the client id, or null. */
    public Successor latest(String clientId) {
        return latest.get(clientId);
    }

    /** Takes out the records of the client ids {@code moving} names (their home is another shard now). */
    public List<Map.Entry<String, Successor>> takeWhere(Predicate<String> moving) {
        var taken = new ArrayList<Map.Entry<String, Successor>>();
        var each = latest.entrySet().iterator();
        while (each.hasNext()) {
            var entry = each.next();
            if (moving.test(entry.getKey())) {
                taken.add(Map.entry(entry.getKey(), entry.getValue()));
                each.remove();
            }
        }
        return taken;
    }

    public int size() {
        return latest.size();
    }
}
