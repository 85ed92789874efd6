package io.pekquitto.shards.session;

import io.pekquitto.shards.session.SessionTransfer.Claim;
import io.pekquitto.shards.session.SessionTransfer.Ended;
import io.pekquitto.shards.session.SessionTransfer.Handover;
import io.pekquitto.shards.session.SessionTransfer.Relinquish;
import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A shard as the home of client ids ({@link SessionTransfer}): the ring that says which client ids are its
 * ({@link HomeRing}), the order of their claims ({@link SessionDirectory}), and the change of ring as nodes come
 * and go (docs/cluster.md, Homes across nodes), whose rounds {@link HomeHandoff} counts. A claim or an end for a
 * client id homed here is ordered once this shard serves; one for another home is passed on once
 * ({@link SessionTransfer.Redirect}), or kept until the ring changes if it was passed on already. Plain rules;
 * what to send goes to {@code effects}.
 *
 * @param <C> how the shard names a connection
 */
final class Homes<C> {
    private final Effects<C> effects;
    private final SessionDirectory directory = new SessionDirectory();
    private final HomeHandoff handoff = new HomeHandoff();
    private HomeRing ring = HomeRing.local(1);
    private int self;

    Homes(Effects<C> effects) {
        this.effects = effects;
    }

    void join(int selfIndex, HomeRing homes, boolean awaitCluster) {
        self = selfIndex;
        ring = homes;
        handoff.start(homes.epoch(), awaitCluster);
    }

    HomeRing ring() { return ring; }

    int homeOf(String clientId) { return ring.homeOf(clientId); }

    /** A Claim, an Ended, or one of them passed on. */
    void receive(SessionTransfer message) {
        // Sessions.receive sends here what it does not take itself: a new variant must not be redirected unread.
        if (!(message instanceof Claim || message instanceof Ended || message instanceof SessionTransfer.Redirect)) {
            throw new IllegalStateException("unhandled session transfer " + message);
        }
        var inner = message instanceof SessionTransfer.Redirect redirect ? redirect.message() : message;
        int home = ring.homeOf(inner.clientId());
        if (home != self) {
            if (inner != message && ring.isLeaving(self)) {
                effects.transfer(home, message);  // sent under a ring older than this one, where this shard was a home
            } else if (inner != message) {
                handoff.stray(inner);
            } else {
                effects.transfer(home, new SessionTransfer.Redirect(inner));
            }
        } else if (!handoff.serving()) {
            handoff.hold(inner);
        } else if (inner instanceof Claim claim) {
            onClaim(claim);
        } else if (inner instanceof Ended ended) {
            directory.ended(ended.clientId(), ended.token());
        } else {
            throw new IllegalStateException("unhandled session transfer " + inner);  // a Redirect carries a Claim or an Ended
        }
    }

    /**
     * The claim is the latest; the session comes from the claim before it, if any. A claim from one holder only, which
     * another claim followed meanwhile, is moot: no session comes to it, and it is not recorded.
     */
    private void onClaim(Claim claim) {
        var latest = directory.latest(claim.clientId());
        if (latest != null && latest.equals(new Successor(claim.shard(), claim.token()))) return;  // heard twice across a ring change
        if (claim.from() != SessionTransfer.ANY_HOLDER && (latest == null || latest.token() != claim.from())) {
            effects.transfer(claim.shard(), new Handover(claim.clientId(), claim.token(), Optional.empty()));
            return;
        }
        var successor = new Successor(claim.shard(), claim.token());
        var previous = directory.claim(claim.clientId(), successor);
        if (previous.isPresent() && previous.get().equals(successor)) return;  // heard twice across a ring change
        if (previous.isEmpty()) {
            effects.transfer(claim.shard(), new Handover(claim.clientId(), claim.token(), Optional.empty()));
        } else {
            effects.transfer(previous.get().shard(), new Relinquish(claim.clientId(), previous.get().token(), successor));
        }
    }

    /** A session recovered here at start: this shard holds it, as the latest claim. */
    void recovered(String clientId, Successor holder) {
        directory.claim(clientId, holder);
    }

    /** A restarted peer held no session any more. */
    void forgetShard(int peer) {
        directory.forgetShard(peer);
    }

    /** Holders a peer tells this (restarted) shard of. */
    void restore(List<Map.Entry<String, Successor>> holders) {
        holders.forEach(holder -> directory.restore(holder.getKey(), holder.getValue()));
    }

    /**
     * This shard takes up {@code newRing}, the shards in {@code gone} gone with their node: returns, by new home,
     * the records this shard kept for client ids it is no longer home of. Round 1 goes with {@link #adopt}.
     */
    Map<Integer, List<Map.Entry<String, Successor>>> changeRing(HomeRing newRing, Set<Integer> gone) {
        ring = newRing;
        gone.forEach(directory::forgetShard);
        var handed = new HashMap<Integer, List<Map.Entry<String, Successor>>>();
        for (var record : directory.takeWhere(clientId -> ring.homeOf(clientId) != self)) {
            handed.computeIfAbsent(ring.homeOf(record.getKey()), home -> new ArrayList<>()).add(record);
        }
        return handed;
    }

    /** Round 1: each shard of the ring gets the records that are its to keep, and hears that this one adopted it. */
    void adopt(Map<Integer, List<Map.Entry<String, Successor>>> handed) {
        var peers = new ArrayList<Integer>();
        for (int shard : ring.participants()) {
            if (shard == self) continue;
            peers.add(shard);
            effects.add(new SessionEffect.Homes<>(shard, ring.epoch(), 1, handed.getOrDefault(shard, List.of())));
        }
        handoff.adopt(ring.epoch(), peers);
        handoff.takeStrays().forEach(this::receive);
        afterHandoffStep();
    }

    /**
     * A peer's step of its ring change, and the records of holders it hands this shard as their home. A record
     * for a client id recorded here already (two homes ordered its claims while the rings differed) makes its
     * holder give the session to the claim recorded here; one for a client id this shard is not home of goes
     * on to its home.
     */
    void homes(int from, long epoch, int round, List<Map.Entry<String, Successor>> holders) {
        var onward = new HashMap<Integer, List<Map.Entry<String, Successor>>>();
        for (var holder : holders) {
            var clientId = holder.getKey();
            int home = ring.homeOf(clientId);
            var recorded = directory.latest(clientId);
            if (home != self) {
                onward.computeIfAbsent(home, h -> new ArrayList<>()).add(holder);
            } else if (recorded == null) {
                directory.restore(clientId, holder.getValue());
            } else if (!recorded.equals(holder.getValue())) {
                effects.transfer(holder.getValue().shard(), new Relinquish(clientId, holder.getValue().token(), recorded));
            }
        }
        onward.forEach((home, records) -> effects.add(new SessionEffect.Homes<>(home, handoff.epoch(), 0, records)));
        if (round == 1) handoff.adopted(from, epoch);
        if (round == 2) handoff.settled(from, epoch);
        afterHandoffStep();
    }

    private void afterHandoffStep() {
        if (handoff.settleNow()) {
            for (int shard : ring.participants()) if (shard != self) effects.add(new SessionEffect.Homes<>(shard, ring.epoch(), 2, List.of()));
        }
        if (handoff.serving()) handoff.takeWaiting().forEach(this::receive);
    }
}
