package io.pekquitto.shards.session;

import java.util.Arrays;

/**
 * Which shard is each client id's home ({@link SessionTransfer}): the mesh's shards in one order that every
 * node agrees on (by node address, then index: docs/cluster.md, Homes across nodes), a client id's home the
 * one its hash picks. Named by an epoch, a hash of that order, so that two nodes that see the same shards
 * have the same ring and say so. On a node of its own the ring is its shards, {@code 0..n-1}. The shards of a
 * node that is leaving (docs/cluster.md, A node leaving) are home to no client id but still take part in the
 * ring's change ({@link #participants}): they hand on the records they kept as homes.
 */
public final class HomeRing {
    private final long epoch;
    private final int[] shards;
    private final int[] leaving;

    /** @param shards the shards' ids on this node, in the cluster's order */
    public HomeRing(long epoch, int[] shards) {
        this(epoch, shards, new int[0]);
    }

    /** @param leaving the shards of nodes that are leaving: in the mesh, home to none */
    public HomeRing(long epoch, int[] shards, int[] leaving) {
        if (shards.length == 0) throw new IllegalArgumentException("a ring of no shard");
        this.epoch = epoch;
        this.shards = shards.clone();
        this.leaving = leaving.clone();
    }

    /** The ring of a node's own {@code count} shards. */
    public static HomeRing local(int count) {
        var shards = new int[count];
        for (int i = 0; i < count; i++) shards[i] = i;
        return new HomeRing(0, shards);
    }

    public long epoch() { return epoch; }

    /** The client id's home: a stable hash, the same on every node with this ring. */
    public int homeOf(String clientId) {
        return shards[Math.floorMod(clientId.hashCode(), shards.length)];
    }

    public int size() { return shards.length; }

    /** The shards of the ring. */
    public int[] shards() { return shards.clone(); }

    public boolean contains(int shard) {
        for (int each : shards) if (each == shard) return true;
        return false;
    }

    /** The shards that take part in a change to this ring: its homes, and the shards of nodes leaving. */
    public int[] participants() {
        var all = Arrays.copyOf(shards, shards.length + leaving.length);
        System.arraycopy(leaving, 0, all, shards.length, leaving.length);
        return all;
    }

    /** Whether the shard is of a node that is leaving: home to none. */
    public boolean isLeaving(int shard) {
        for (int each : leaving) if (each == shard) return true;
        return false;
    }

    @Override
    public String toString() {
        return "HomeRing(" + Long.toHexString(epoch) + ", " + Arrays.toString(shards)
                + (leaving.length == 0 ? "" : ", leaving " + Arrays.toString(leaving)) + ")";
    }
}
