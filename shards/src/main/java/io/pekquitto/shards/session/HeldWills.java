package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The holder's side of the wills of a lost node's clients (docs/cluster.md, Wills across nodes): each session held
 * here with a will, its connection's or one waiting out its delay, is told to a will keeper on another node
 * ({@link #keeperOf}), so that the will is known on two nodes and the keeper publishes it if this node is lost
 * ({@link WillKeeper}). The keeper forgets it when the will is published here, cancelled, or its session ends or
 * moves on; it hears it again when the ring makes another shard the keeper, or its keeper restarted. A broker of one
 * node has no keeper: nothing is sent. Plain rules; what to send goes to {@code effects}.
 *
 * @param <C> how the shard names a connection
 */
final class HeldWills<C> {
    /** No keeper: no shard of the ring is on another node. */
    static final int NONE = -1;

    private record Told(long token, DelayedWill will, int keeper) {}

    private final Effects<C> effects;
    private final IntPredicate isRemote;
    /** By client id: the will of the session held here, the claim it is held under and the keeper told of it. */
    private final Map<String, Told> held = new HashMap<>();
    private int self;
    private HomeRing ring = HomeRing.local(1);

    /** @param isRemote whether a shard is on another node than this one */
    HeldWills(Effects<C> effects, IntPredicate isRemote) {
        this.effects = effects;
        this.isRemote = isRemote;
    }

    void joinMesh(int selfIndex, HomeRing homes) {
        self = selfIndex;
        ring = homes;
    }

    /**
     * The client's will keeper, seen from this node: the client id's home if that is on another node, else the first
     * shard after the home in the ring's order that is on another node; {@link #NONE} if every shard is on this one.
     */
    static int keeperOf(HomeRing ring, String clientId, IntPredicate isRemote) {
        int home = ring.homeOf(clientId);
        if (isRemote.test(home)) return home;
        var shards = ring.shards();
        int at = 0;
        while (shards[at] != home) at++;
        for (int step = 1; step < shards.length; step++) {
            int next = shards[(at + step) % shards.length];
            if (isRemote.test(next)) return next;
        }
        return NONE;
    }

    /**
     * The client's session is held here under claim {@code token} with {@code will} (null: none, or no more): its keeper
     * hears of a new claim's will, and forgets one gone. Within one claim the will does not change: the connection's
     * will is the one that waits out its delay once it ended.
     */
    void hold(String clientId, long token, DelayedWill will) {
        if (will == null) {
            release(clientId);
            return;
        }
        var told = held.get(clientId);
        if (told != null && told.token() == token) return;
        var newer = new Told(token, will, keeperOf(ring, clientId, isRemote));
        if (told != null && told.keeper() != newer.keeper()) forget(clientId, told);
        held.put(clientId, newer);
        keep(clientId, newer);
    }

    /** No session of the client's with a will is held here any more: its keeper forgets it. */
    void release(String clientId) {
        var told = held.remove(clientId);
        if (told != null) forget(clientId, told);
    }

    /**
     * The ring changed, the shards in {@code gone} gone with their node: a will whose keeper is another now, or was on
     * a gone node, goes to its keeper now (a keeper of a new incarnation of a node has the same id and nothing kept),
     * and one still there forgets it.
     */
    void ringChanged(HomeRing newRing, Set<Integer> gone) {
        ring = newRing;
        for (var entry : held.entrySet()) {
            var told = entry.getValue();
            int keeper = keeperOf(ring, entry.getKey(), isRemote);
            if (keeper == told.keeper() && !gone.contains(keeper)) continue;
            if (!gone.contains(told.keeper())) forget(entry.getKey(), told);
            var moved = new Told(told.token(), told.will(), keeper);
            entry.setValue(moved);
            keep(entry.getKey(), moved);
        }
    }

    /** A keeper restarted with empty state: it hears again of the wills it kept. */
    void keeperRestarted(int shard) {
        held.forEach((clientId, told) -> {
            if (told.keeper() == shard) keep(clientId, told);
        });
    }

    private void keep(String clientId, Told told) {
        if (told.keeper() == NONE) return;
        var will = told.will();
        effects.transfer(told.keeper(), new KeepWill(clientId, self, told.token(), will.message(), will.delaySeconds()));
    }

    private void forget(String clientId, Told told) {
        if (told.keeper() != NONE) effects.transfer(told.keeper(), new ForgetWill(clientId, self, told.token()));
    }

    /**
     * What the keeper on another node must hold of the client's will now: the will of the connection that has the
     * session held here ({@code owned}; or is given it), or, offline, the will waiting out its delay; none if no session
     * of the client's is held here ({@code owned} null).
     */
    void witness(String clientId, OwnedSession<C> owned) {
        if (owned == null) {
            release(clientId);
        } else if (owned.connection != null) {
            hold(clientId, owned.token, owned.will);
        } else {
            var pending = owned.pendingWill;
            hold(clientId, owned.token, pending == null ? null
                    : new DelayedWill(pending.message(), (pending.publishAt() - pending.endedAt()) / 1_000_000_000L));
        }
    }
}
