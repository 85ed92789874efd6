package io.pekquitto.shards.session;

import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.SessionEffect.PublishWill;
import io.pekquitto.shards.session.SessionEffect.TakeOver;
import io.pekquitto.shards.session.SessionTransfer.Adopt;
import io.pekquitto.shards.session.SessionTransfer.Claim;
import io.pekquitto.shards.session.SessionTransfer.Ended;
import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.Handover;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import io.pekquitto.shards.session.SessionTransfer.Relinquish;
import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * The session rules of one shard: the sessions it holds ({@link SessionTable}), the CONNECTs waiting
 * for theirs, and, for the client ids whose home it is, the order of their claims ({@link Homes}). A CONNECT becomes a claim sent to the home; the home makes the holder
 * of the previous claim hand the session on ({@link SessionTransfer}); the session arrives, and the
 * claim's connection gets it, or it waits offline, or it goes on to a later claim. So every takeover,
 * on one shard or across shards, however many connections race, closes every connection but the
 * last one ordered by the home ([MQTT-3.1.4-3]), and the session is never in two places.
 *
 * <p>Plain rules without I/O: each call returns the {@link SessionEffect}s the shard must perform.
 *
 * @param <C> how the shard names a connection
 */
public final class Sessions<C> {
    private final Effects<C> effects = new Effects<>();
    private final SessionTable<C> table;
    private final NodeCrossing crossing;
    private final Homes<C> homes = new Homes<>(effects);
    /** The wills of sessions held here, each told to a keeper on another node; and those this shard keeps for others. */
    private final HeldWills<C> wills;
    private final WillKeeper keeper = new WillKeeper();
    private final PendingClaims<C> claims = new PendingClaims<>();
    private int self;

    /** @param newSession makes the empty session of a client id (queue limits from the settings) */
    public Sessions(Function<String, Session> newSession) {
        this(newSession, SessionJournal.NONE);
    }

    /** @param journal where persistent sessions are written: the shard's batch for the store */
    public Sessions(Function<String, Session> newSession, SessionJournal journal) {
        this(newSession, journal, MemoryBudget.NONE, shard -> false, Long.MAX_VALUE);
    }

    /**
     * @param memory        the shard's memory budget, which the sessions held here count against
     * @param isRemote      whether a shard is on another node: a session goes to it in its portable form, and one that
     *                      comes from it is rebuilt here ({@link NodeCrossing}); asked at each move
     * @param portableBytes what a session leaving for another node carries at most (PortableSession.within)
     */
    public Sessions(Function<String, Session> newSession, SessionJournal journal, MemoryBudget memory, IntPredicate isRemote,
                    long portableBytes) {
        this.crossing = new NodeCrossing(isRemote, portableBytes, journal, memory);
        this.wills = new HeldWills<>(effects, isRemote);
        this.table = new SessionTable<>(newSession, effects, journal, memory, crossing);
    }

    /** This shard's index among {@code shardCount}, a node's shards alone. */
    public void joinMesh(int selfIndex, int shardCount) {
        joinMesh(selfIndex, HomeRing.local(shardCount));
    }

    /** This shard's id, and the ring of homes it starts with (no home handed over anything before it). */
    public void joinMesh(int selfIndex, HomeRing homes) {
        joinMesh(selfIndex, homes, false);
    }

    /**
     * This shard's id and the ring of homes it starts with; {@code awaitCluster}: a node of a cluster orders no
     * claim before it takes up the ring with the other nodes' shards ({@link #ringChanged}).
     */
    public void joinMesh(int selfIndex, HomeRing homes, boolean awaitCluster) {
        self = selfIndex;
        claims.joinMesh(selfIndex);
        this.homes.join(selfIndex, homes, awaitCluster);
        table.joinMesh(selfIndex, homes);
        wills.joinMesh(selfIndex, homes);
    }

    // ---- from connections

    /** A CONNECT without a will was accepted. */
    public List<SessionEffect<C>> connect(String clientId, C connection, boolean cleanStart, long sessionExpiryInterval) {
        return connect(clientId, connection, cleanStart, sessionExpiryInterval, Optional.empty());
    }

    /**
     * A CONNECT was accepted: the connection claims the client's session through the client id's home; its will, once it
     * has the session, is told to a keeper on another node ({@link HeldWills}).
     */
    public List<SessionEffect<C>> connect(String clientId, C connection, boolean cleanStart, long sessionExpiryInterval,
                                          Optional<DelayedWill> will) {
        var claim = claims.open(clientId, connection, cleanStart, sessionExpiryInterval, will.orElse(null));
        effects.transfer(homes.homeOf(clientId), new Claim(clientId, self, claim.token));
        return effects.take();
    }

    /** The connection ended and hands its session back, with the will it leaves if that waits out a delay. */
    public List<SessionEffect<C>> release(C connection, String clientId, Session session, long sessionExpiryInterval,
                                          Optional<PendingWill> will, long now) {
        table.release(connection, clientId, session, sessionExpiryInterval, will, now);
        witness(clientId);
        return effects.take();
    }

    /** The connection actor stopped; if it still held a session (it failed), the session goes on without it. */
    public List<SessionEffect<C>> connectionStopped(C connection, long now) {
        if (claims.ofStopped(connection) == null) {  // else the session still comes to the claim, and stays here
            var clientId = table.clientOf(connection);
            table.connectionStopped(connection, now);
            if (clientId != null) witness(clientId);
        }
        return effects.take();
    }

    /** Every peer has applied this shard's announcements so far: an attaching session may be handed over. */
    public List<SessionEffect<C>> peersApplied(String clientId, long token) {
        table.peersApplied(clientId, token);
        return effects.take();
    }

    // ---- the transfer protocol

    /** A {@link SessionTransfer} message from a shard, this one included. */
    public List<SessionEffect<C>> receive(SessionTransfer message, long now) {
        if (message instanceof Relinquish relinquish) {
            onRelinquish(relinquish, now);
        } else if (message instanceof Handover handover) {
            onHandover(handover, now);
        } else if (message instanceof KeepWill keep) {
            keeper.keep(keep);
            return effects.take();
        } else if (message instanceof ForgetWill forget) {
            keeper.forget(forget);
            return effects.take();
        } else if (message instanceof Adopt adopt) {
            claimWithoutConnection(adopt.clientId(), adopt.from());
        } else {
            homes.receive(message);  // a Claim, an Ended, or one of them passed on
        }
        witness(message.clientId());
        return effects.take();
    }

    /** At the holder of a claim or a session: a later claim takes it. */
    private void onRelinquish(Relinquish relinquish, long now) {
        var claim = claims.get(relinquish.token());
        if (claim != null) {
            // Still waiting for the session: its connection loses now, the session passes on when it comes.
            claim.next = relinquish.to();
            if (claim.connection != null) effects.add(new TakeOver<>(claim.connection));  // [MQTT-3.1.4-3]
            claims.detach(claim);
        } else if (!table.relinquish(relinquish.clientId(), relinquish.token(), relinquish.to(), now)) {
            // The session ended meanwhile: the later claim starts without one.
            effects.transfer(relinquish.to().shard(), new Handover(relinquish.clientId(), relinquish.to().token(), Optional.empty()));
        }
    }

    /** At a claimant: its session arrived (or none); claims it was relinquished to in this shard take it on at once. */
    private void onHandover(Handover handover, long now) {
        var session = handover.session();
        var claim = claims.remove(handover.token());
        while (claim != null && claim.next != null && claim.next.shard() == self) {
            claim = claims.remove(claim.next.token());
        }
        if (claim == null) {
            // A claim lost with a restarted shard's state: the store keeps the session (one from another node
            // is journaled here first), and gives it back when its client claims it again (lostSession).
            session.ifPresent(lost -> crossing.arriving(lost, now).session().leaveMemory());
            return;
        }
        if (claim.next == null && (claim.connection != null || session.isPresent())) effects.moved().arrived(claim.clientId);
        if (claim.next != null) {
            var next = claim.next;
            // A session indexed here (it moved within this shard) is routed here until the peers cut over.
            int indexedOn = session.filter(s -> s instanceof MigratedSession live && live.indexed()).isPresent() ? self : handover.indexedOn();
            var passed = session.map(moving -> passOn(moving, next.shard(), now));
            effects.transfer(next.shard(), new Handover(claim.clientId, next.token(), passed, indexedOn));
            return;
        } else if (claim.connection != null) {
            table.attach(claim, session.map(arrived -> crossing.arriving(arrived, now)), now);
        } else if (session.isPresent()) {
            table.keepOffline(claim.clientId, claim.token, crossing.arriving(session.get(), now), now);
        } else if (claim.from == SessionTransfer.ANY_HOLDER) {  // a moot adoption was never recorded by the home
            effects.transfer(homes.homeOf(claim.clientId), new Ended(claim.clientId, claim.token));
        }
        if (session.isPresent() && handover.indexedOn() != SessionTransfer.NOWHERE && handover.indexedOn() != self) {
            // Announced here now; routed there until every peer cut over. Clean Start: its messages there are for no one.
            effects.add(new SessionEffect.Crossed<>(claim.clientId, handover.indexedOn(), claim.connection != null && claim.cleanStart));
        }
    }

    /** A session that arrived for a claim already relinquished goes on to {@code shard}: a portable one as it is. */
    private MovingSession passOn(MovingSession moving, int shard, long now) {
        if (!(moving instanceof MigratedSession live)) return moving;
        live.session().leaveMemory();  // it goes on to another shard
        return crossing.leaving(shard, table.unindexed(live.clientId(), live), now);
    }

    // ---- a node leaving (docs/cluster.md, A node leaving)

    /**
     * This shard's node is leaving, and the ring has no home on it any more: each session held here that outlives its
     * connection is claimed by its home on another node ({@link Adopt}), which keeps it offline; a connection that has
     * it is closed as it goes ({@link SessionEffect.TakeOver}). Sent again for what is still here when called again.
     */
    public List<SessionEffect<C>> evacuate() {
        if (!homes.ring().isLeaving(self)) return effects.take();  // every node leaves: no home elsewhere to hand them to
        for (var owned : table.all()) {
            if (outlivesConnection(owned)) effects.transfer(homes.homeOf(owned.clientId), new Adopt(owned.clientId, owned.token));
        }
        return effects.take();
    }

    /**
     * Whether no session that outlives its connection is held here, nor a claim waits here for one; or there is nowhere
     * to hand them to: this shard is still a home of its ring (every node of the cluster leaves at once).
     */
    public boolean evacuated() {
        if (!homes.ring().isLeaving(self)) return true;
        for (var owned : table.all()) if (outlivesConnection(owned)) return false;
        return claims.isEmpty();
    }

    private static boolean outlivesConnection(OwnedSession<?> owned) {
        return owned.connection == null || (owned.attaching ? owned.attachingExpiry : owned.sessionExpiryInterval) > 0;
    }

    /**
     * A claim of no connection for the session held under token {@code from}: the session comes here and stays offline,
     * or goes on to a claim ordered after this one; none comes if a claim was ordered after {@code from}'s before this.
     */
    private void claimWithoutConnection(String clientId, long from) {
        var claim = claims.open(clientId, null, false, 0, null);
        claim.from = from;
        effects.transfer(homes.homeOf(clientId), new Claim(clientId, self, claim.token, from));
    }

    // ---- recovery at start

    /**
     * A persistent session read back from the store, whose home is this shard: held here offline, as
     * if its client had just disconnected from this shard; returns its subscriptions to index.
     */
    public List<SessionEffect<C>> recover(RecoveredSession recovered) {
        long token = claims.newToken();
        var clientId = recovered.clientId();
        table.recover(clientId, token, MigratedSession.recovered(recovered), recovered.offlineSince());
        homes.recovered(clientId, new Successor(self, token));
        witness(clientId);
        return effects.take();
    }

    /**
     * Once the recovered sessions' subscriptions are known to every shard: their expiry and will
     * timers, and what expired while the broker was down ends now, its will published.
     */
    public List<SessionEffect<C>> startRecoveredTimers(List<String> clientIds, long now) {
        for (var clientId : clientIds) {
            table.startTimers(clientId, now);
            witness(clientId);
        }
        return effects.take();
    }

    // ---- timers

    public List<SessionEffect<C>> expiryCheck(String clientId, long generation, long now) {
        table.expiryCheck(clientId, generation, now);
        witness(clientId);
        return effects.take();
    }

    public List<SessionEffect<C>> willDelayExpired(String clientId, long generation, long now) {
        table.willDelayExpired(clientId, generation, now);
        witness(clientId);
        return effects.take();
    }

    // ---- a peer restarted

    /**
     * A peer restarted with empty state: the sessions it held are gone, and it is home again to some
     * client ids. Returns the claims waiting here whose home it is, sent again.
     */
    public List<SessionEffect<C>> peerRestarted(int peer) {
        homes.forgetShard(peer);
        keeper.holderRestarted(peer);
        wills.keeperRestarted(peer);
        table.sessionsMayHaveBeenLost();
        for (var claim : claims.all()) {
            if (claim.next == null && homes.homeOf(claim.clientId) == peer) {
                effects.transfer(peer, new Claim(claim.clientId, self, claim.token, claim.from));
            }
        }
        return effects.take();
    }

    // ---- the ring of homes changes (nodes came or went: docs/cluster.md, Homes across nodes)

    /**
     * This shard takes up {@code newRing}; the shards in {@code gone} are gone with their node. Round 1 of
     * HomeHandoff: the records of holders this shard kept as home go to their new homes; the sessions held
     * here and the claims waiting here whose home was gone are told to their new homes (the records went with
     * it); then every shard of the ring hears that this one adopted it ({@link Homes}). The wills this shard keeps
     * for clients of the gone shards are published now, but those of shards in {@code left}, whose node left (it
     * published them itself), and the wills held here whose keeper is another now, or gone, go to their keeper
     * ({@link WillKeeper}, {@link HeldWills}).
     */
    public List<SessionEffect<C>> ringChanged(HomeRing newRing, Set<Integer> gone, Set<Integer> left, long now) {
        keeper.holdersGone(gone, left, now).forEach(will -> effects.add(new PublishWill<>(will.getKey(), will.getValue())));
        var old = homes.ring();
        var handed = homes.changeRing(newRing, gone);
        table.joinMesh(self, newRing);
        wills.ringChanged(newRing, gone);
        for (var owned : table.all()) {
            if (!gone.contains(old.homeOf(owned.clientId))) continue;  // its home hands the record over
            var holder = Map.entry(owned.clientId, new Successor(self, owned.token));
            int home = newRing.homeOf(owned.clientId);
            if (home == self) {
                homes.restore(List.of(holder));
            } else {
                handed.computeIfAbsent(home, h -> new ArrayList<>()).add(holder);
            }
        }
        for (var claim : claims.all()) {
            if (claim.next == null && gone.contains(old.homeOf(claim.clientId))) {
                effects.transfer(newRing.homeOf(claim.clientId), new Claim(claim.clientId, self, claim.token, claim.from));
            }
        }
        homes.adopt(handed);
        return effects.take();
    }

    /** The ring changed, and the nodes of the shards in {@code gone} were lost (none left). */
    public List<SessionEffect<C>> ringChanged(HomeRing newRing, Set<Integer> gone, long now) {
        return ringChanged(newRing, gone, Set.of(), now);
    }

    /** A peer's step of its ring change, with the records of holders that are this shard's to keep ({@link Homes}). */
    public List<SessionEffect<C>> homes(int from, long epoch, int round, List<Map.Entry<String, Successor>> holders) {
        homes.homes(from, epoch, round, holders);
        return effects.take();
    }

    /** This shard restarted after a failure: the sessions it held are in the store alone. */
    public void restarted() {
        table.sessionsMayHaveBeenLost();
    }

    /** The sessions held here whose home is {@code peer} (client ids and tokens), for it to rebuild its directory after a restart. */
    public List<Map.Entry<String, Successor>> heldWithHome(int peer) {
        var held = new ArrayList<Map.Entry<String, Successor>>();
        for (var owned : table.all()) {
            if (homes.homeOf(owned.clientId) == peer) held.add(Map.entry(owned.clientId, new Successor(self, owned.token)));
        }
        return held;
    }

    /** A peer tells this (restarted) shard which of the client ids homed here it holds. */
    public void restoreHolders(List<Map.Entry<String, Successor>> holders) {
        homes.restore(holders);
    }

    /** What this shard's will keeper on another node must hold of the client's will now ({@link HeldWills#witness}). */
    private void witness(String clientId) {
        wills.witness(clientId, table.get(clientId));
    }

    /** How many wills of other nodes' clients this shard keeps. */
    int keptWills() {
        return keeper.size();
    }

    // ---- deliveries and subscriptions

    /**
     * Where a message for a client goes: its attached connection (returned, for the caller to batch it),
     * or the session's queue, offline rules applied (null); null too when no session of the client is here.
     */
    public C deliver(String clientId, Message message) {
        var owned = table.get(clientId);
        if (owned == null) return null;
        if (owned.isAttached()) {
            owned.session.routed(message);
            return owned.connection;
        }
        if (owned.session.offer(message, owned.connection == null, false) == Queueing.FULL) table.offlineDropped();
        return null;
    }

    /**
     * A message held for the client while its connection drains ({@link ReleaseDraining}): a persistent
     * session journals it now, so the publisher's acknowledgement covers it wherever it goes next.
     */
    public void held(String clientId, Message message) {
        var owned = table.get(clientId);
        if (owned != null) owned.session.routed(message);
    }

    /** What the sessions held here amount to now, for $SYS and the metrics. */
    public SessionCensus census() {
        return table.census();
    }

    /** The connections attached to the sessions held here, live or parked (the shutdown tells each). */
    public List<C> connections() {
        return table.connections();
    }

    /** The client whose session is attached to this connection (it has the session, live or parked), or null. */
    public String attachedClient(C connection) {
        return table.attachedClient(connection);
    }

    /**
     * The shard a message for a client whose session is not held here goes on to: where its session went when it last
     * left this shard (the message was sent on here after it left), or -1.
     */
    public int movedTo(String clientId) {
        int to = table.holds(clientId) ? MovedSessions.NOWHERE : effects.moved().whereTo(clientId);
        return to == self ? MovedSessions.NOWHERE : to;  // a session handed between two claims of this shard
    }

    /** Whether a session of this client is held here. */
    public boolean holds(String clientId) {
        return table.holds(clientId);
    }

    /** The subscriptions of the client's session held here (changed in place by SUBSCRIBE), or null. */
    public Map<String, SubscriptionEntry> subscriptionsOf(String clientId) {
        var owned = table.get(clientId);
        return owned == null ? null : owned.changeableSubscriptions();
    }

    /** The subscriptions of a session held here were changed in place: a persistent session is written again. */
    public void subscriptionsChanged(String clientId) {
        table.subscriptionsChanged(clientId);
    }
}
