package io.pekquitto.shards.mesh;

import java.util.HashMap;
import java.util.Map;

/**
 * Which shard owns each session, for the client ids whose home is this shard. A client may connect on
 * any shard, so its session may live on any shard; its home shard ({@link #homeOf}) serialises the
 * claims for it: every claim goes through the home, which records the new owner and tells the old one
 * to hand the session over. Bounded by live sessions: an owner reports when a session ends.
 */
public final class SessionDirectory {
    /** No shard owns the session. */
    public static final int NONE = -1;

    private final Map<String, Integer> owners = new HashMap<>();

    /** The home shard of a client id: a stable hash, never negative ({@code Math.floorMod}). */
    public static int homeOf(String clientId, int shards) {
        return Math.floorMod(clientId.hashCode(), shards);
    }

    /** Records a claim and returns the previous owner, or {@link #NONE}. */
    public int claim(String clientId, int claimant) {
        var previous = owners.put(clientId, claimant);
        return previous == null ? NONE : previous;
    }

    /** The owner reports that the session ended; ignored if another shard has claimed it since. */
    public void ended(String clientId, int owner) {
        owners.remove(clientId, owner);
    }

    /** Records an owner without a claim (a peer resynchronising after this shard restarted). */
    public void restore(String clientId, int owner) {
        owners.putIfAbsent(clientId, owner);
    }

    /** Forgets every session a restarted shard owned: its sessions are gone with its state. */
    public void forgetOwner(int owner) {
        owners.values().removeIf(o -> o == owner);
    }

    public int size() { return owners.size(); }
}
