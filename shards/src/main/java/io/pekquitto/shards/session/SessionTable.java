package io.pekquitto.shards.session;

import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.SessionEffect.Attach;
import io.pekquitto.shards.session.SessionEffect.AwaitPeers;
import io.pekquitto.shards.session.SessionEffect.PublishWill;
import io.pekquitto.shards.session.SessionEffect.RedeliverShared;
import io.pekquitto.shards.session.SessionEffect.Refuse;
import io.pekquitto.shards.session.SessionEffect.StartExpiryTimer;
import io.pekquitto.shards.session.SessionEffect.StartWillTimer;
import io.pekquitto.shards.session.SessionEffect.Subscribe;
import io.pekquitto.shards.session.SessionEffect.TakeOver;
import io.pekquitto.shards.session.SessionEffect.Unsubscribe;
import io.pekquitto.shards.session.SessionTransfer.Ended;
import io.pekquitto.shards.session.SessionTransfer.Handover;
import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The sessions one shard holds (4.1): each attached to its connection or offline, with its
 * subscriptions, its expiry (3.1.2.11.2) and a will waiting out its delay (3.1.3.2.2). A session
 * arrives for a claim ({@link Sessions}), is attached, detached when its connection releases it,
 * ended when it expires or its expiry interval is 0, and handed over when a later claim wants it.
 * Timers are effects; a timer that fires after its session was attached or detached again is stale,
 * which the session's generation tells.
 *
 * <p>A session whose expiry interval is not 0 is persistent: it and its changes go to the shard's
 * {@link SessionJournal}, and it ends there when it ends here. Keyed by client id, it needs no write
 * when it moves to another shard of its node; to another node it goes portable ({@link NodeCrossing}).
 *
 * <p>Every session held counts against the shard's {@link MemoryBudget}, what it holds and its own cost; past
 * it, a new persistent session is refused (0x97 Quota exceeded); resumed and clean sessions still connect.
 */
final class SessionTable<C> {
    /** Pekko's scheduler cannot hold timers of years; long expiries are checked in steps of this. */
    static final Duration LONGEST_TIMER = Duration.ofDays(7);

    private final Map<String, OwnedSession<C>> sessions = new HashMap<>();
    private final Map<C, OwnedSession<C>> byConnection = new HashMap<>();
    private final Function<String, Session> newSession;
    /** Set once a shard restarted after a failure: the store may hold sessions no shard holds. */
    private boolean mayHaveLostSessions;
    private final Effects<C> effects;
    private final SessionJournal journal;
    private final MemoryBudget memory;
    private final NodeCrossing crossing;
    private int self;
    private HomeRing ring = HomeRing.local(1);
    /** Sessions ended by their expiry, and messages an offline session could not queue: for $SYS. */
    private long expired;
    private long droppedOffline;

    SessionTable(Function<String, Session> newSession, Effects<C> effects, SessionJournal journal, MemoryBudget memory,
                 NodeCrossing crossing) {
        this.newSession = newSession;
        this.effects = effects;
        this.journal = journal;
        this.memory = memory;
        this.crossing = crossing;
    }

    void joinMesh(int selfIndex, HomeRing homes) {  // the ring changes as nodes come and go
        self = selfIndex;
        ring = homes;
    }

    OwnedSession<C> get(String clientId) {
        return sessions.get(clientId);
    }

    Iterable<OwnedSession<C>> all() {
        return sessions.values();
    }

    /** What the sessions held here amount to now, for $SYS and the metrics. */
    SessionCensus census() {
        return SessionCensus.of(sessions.values(), expired, droppedOffline);
    }

    // ---- a session arrives for a claim

    /**
     * Attaches the claim's connection to the session that arrived, or to a new one: Clean Start ends
     * an existing one first ([MQTT-3.1.2-4]); resuming one cancels its pending will ([MQTT-3.1.3-9]).
     */
    void attach(PendingClaim<C> claim, Optional<MigratedSession> arrived, long now) {
        var previous = arrived.orElse(null);
        if (previous == null && !claim.cleanStart && mayHaveLostSessions && journal.isKept()) {
            previous = lostSession(claim.clientId, now);
        }
        if (previous == null && claim.sessionExpiryInterval > 0 && !memory.hasRoomForSession()) {
            // A new persistent session the budget has no room for: 0x97 (3 in 3.1.1); the home hears there is none.
            memory.sessionRefused();
            effects.add(new Refuse<>(claim.connection, ReasonCode.QUOTA_EXCEEDED, "the memory budget has no room for another persistent session"));
            effects.transfer(ring.homeOf(claim.clientId), new Ended(claim.clientId, claim.token));
            return;
        }
        if (previous != null && claim.cleanStart) {
            discard(claim.clientId, previous, now);
            previous = null;
        }
        if (previous != null && previous.will().isPresent() && previous.session().journal().isKept()) {
            journal.will(claim.clientId, null);  // [MQTT-3.1.3-9] resuming the session cancels the will
        }
        var owned = previous == null
                ? new OwnedSession<C>(claim.clientId, claim.token, newSession.apply(claim.clientId))
                : install(claim.clientId, claim.token, previous);
        put(owned);
        owned.pendingWill = null;
        owned.generation++;
        owned.connection = claim.connection;
        owned.will = claim.will;
        owned.attachingExpiry = claim.sessionExpiryInterval;
        byConnection.put(claim.connection, owned);
        if (previous != null && !previous.indexed() && !previous.subscriptions().isEmpty() && ring.size() > 1) {
            // CONNACK once peers route the moved subscriptions here: a message published after it reaches them.
            owned.attaching = true;
            effects.add(new AwaitPeers<>(claim.clientId, claim.token));
        } else {
            handToConnection(owned, previous != null);
        }
    }

    private void put(OwnedSession<C> owned) {
        sessions.put(owned.clientId, owned);
        memory.sessions(sessions.size());
    }

    private void remove(String clientId) {
        sessions.remove(clientId);
        memory.sessions(sessions.size());
    }

    /**
     * A session the store holds but no shard does: a shard that held it restarted after a failure. It
     * comes back from the store, offline since it was lost (its will and expiry timers were lost with it).
     */
    private MigratedSession lostSession(String clientId, long now) {
        var stored = journal.storedSession(clientId, newSession).orElse(null);
        if (stored == null) return null;
        var lost = MigratedSession.recovered(stored);
        if (lost.expiresAt() - now <= 0) {
            journal.ended(clientId);  // it expired meanwhile: the client starts anew, and a will waiting goes now
            stored.session().journalTo(SessionJournal.NONE);
            stored.will().ifPresent(pending -> effects.add(new PublishWill<>(clientId, pending.messageAt(now))));
            return null;
        }
        return lost;
    }

    /** A shard restarted after a failure: a client may come back to a session only the store still holds. */
    void sessionsMayHaveBeenLost() {
        mayHaveLostSessions = true;
    }

    /** The peers know the subscriptions of an attaching session: its connection gets it now. */
    void peersApplied(String clientId, long token) {
        var owned = sessions.get(clientId);
        if (owned != null && owned.token == token && owned.attaching) handToConnection(owned, true);
    }

    private void handToConnection(OwnedSession<C> owned, boolean sessionPresent) {
        owned.attaching = false;
        owned.sessionExpiryInterval = owned.attachingExpiry;
        // A new session starts from nothing in the store too (a shard restarted after a failure may
        // have forgotten one the store still holds).
        if (!sessionPresent && owned.attachingExpiry > 0 && journal.isKept()) journal.ended(owned.clientId);
        // The shard keeps its reference: it journals what it routes to the connection (Session.routed).
        journal(owned, SessionJournal.CONNECTED);
        effects.add(new Attach<>(owned.connection, sessionPresent, owned.session));
    }

    /**
     * Writes the session down if it is persistent, from now on through this shard's journal; a session
     * that no longer is (a CONNECT with expiry 0 resumed it) leaves the journal.
     */
    private void journal(OwnedSession<C> owned, long offlineSince) {
        var session = owned.session;
        if (owned.sessionExpiryInterval > 0 && journal.isKept()) {
            session.journalTo(journal);
            journal.session(owned.clientId, owned.sessionExpiryInterval, owned.subscriptions(), offlineSince);
        } else if (session.journal().isKept()) {
            journal.ended(owned.clientId);
            session.journalTo(SessionJournal.NONE);
        }
    }

    /** A SUBSCRIBE or UNSUBSCRIBE changed the subscriptions of a session held here. */
    void subscriptionsChanged(String clientId) {
        var owned = sessions.get(clientId);
        if (owned != null && owned.session.journal().isKept()) {
            journal(owned, owned.connection != null ? SessionJournal.CONNECTED : owned.offlineSince);
        }
    }

    /** A session arrived for a claim whose connection is gone: it stays here offline, as it was. */
    void keepOffline(String clientId, long token, MigratedSession arrived, long now) {
        var owned = install(clientId, token, arrived);
        put(owned);
        goOffline(owned, now);
    }

    /** A session recovered from the store at start, offline since {@code offlineSince}; its timers start with {@link #startTimers}. */
    void recover(String clientId, long token, MigratedSession recovered, long offlineSince) {
        var owned = install(clientId, token, recovered);
        owned.offlineSince = offlineSince;
        put(owned);
    }

    /** The timers of a recovered session: it ends now if it expired while the broker was down, and its will goes. */
    void startTimers(String clientId, long now) {
        var owned = sessions.get(clientId);
        if (owned == null || owned.connection != null) return;
        owned.generation++;
        if (now - owned.expiresAt >= 0) {
            end(owned, now);
            return;
        }
        if (owned.sessionExpiryInterval != Session.NEVER_EXPIRES) startExpiryTimer(owned, now);
        if (owned.pendingWill != null) startWillTimer(owned, now);
    }

    private OwnedSession<C> install(String clientId, long token, MigratedSession migrated) {
        if (migrated.session().journal().isKept()) migrated.session().journalTo(journal);  // this shard writes it now
        migrated.session().memoryTo(memory);  // and holds it
        var owned = new OwnedSession<C>(clientId, token, migrated.session());
        if (!migrated.subscriptions().isEmpty()) owned.changeableSubscriptions().putAll(migrated.subscriptions());
        owned.sessionExpiryInterval = migrated.sessionExpiryInterval();
        owned.expiresAt = migrated.expiresAt();
        owned.pendingWill = migrated.will().orElse(null);
        if (!migrated.indexed()) {
            migrated.subscriptions().forEach((filter, entry) -> effects.add(new Subscribe<>(clientId, filter, entry)));
        }
        return owned;
    }

    // ---- a connection lets its session go

    /**
     * The connection ended and gives the session back, with the expiry interval it ends with
     * (DISCONNECT may change it) and its will if that waits out a delay.
     */
    void release(C connection, String clientId, Session session, long sessionExpiryInterval,
                 Optional<PendingWill> will, long now) {
        var owned = byConnection.get(connection);
        if (owned == null || !owned.isAttached()) {
            will.ifPresent(pending -> effects.add(new PublishWill<>(clientId, pending.messageAt(now))));
            return;
        }
        byConnection.remove(connection);
        owned.connection = null;
        owned.session = session;
        owned.sessionExpiryInterval = sessionExpiryInterval;
        owned.pendingWill = will.orElse(null);
        if (owned.pendingWill != null && sessionExpiryInterval > 0 && session.journal().isKept()) {
            journal.will(clientId, owned.pendingWill);
        }
        detached(owned, now);
    }

    /** The connections attached to a session held here, live or parked. */
    List<C> connections() {
        return List.copyOf(byConnection.keySet());
    }

    /** The connection stopped without releasing its session (it failed): its delivery state is lost. */
    void connectionStopped(C connection, long now) {
        var owned = byConnection.remove(connection);
        if (owned == null) return;
        owned.connection = null;
        if (owned.attaching) {
            owned.attaching = false;  // the session never left: it stays as it was
        } else {
            owned.session = owned.session.emptied();
        }
        detached(owned, now);
    }

    private void detached(OwnedSession<C> owned, long now) {
        owned.expiresAt = MigratedSession.expiresAt(now, owned.sessionExpiryInterval);
        if (owned.next != null) {
            handOver(owned, owned.next, now);
        } else if (owned.sessionExpiryInterval == 0) {
            end(owned, now);  // 3.1.2.11.2: with expiry 0 the session ends with the connection
        } else {
            owned.session.dropQueuedQos0();
            goOffline(owned, now);
        }
    }

    private void goOffline(OwnedSession<C> owned, long now) {
        owned.generation++;
        owned.offlineSince = now;
        if (owned.session.journal().isKept()) journal(owned, now);
        if (owned.sessionExpiryInterval != Session.NEVER_EXPIRES) startExpiryTimer(owned, now);
        if (owned.pendingWill != null) startWillTimer(owned, now);
    }

    // ---- a later claim takes the session

    /** The home tells the holder of {@code token} to hand the session on; false if it holds no such session. */
    boolean relinquish(String clientId, long token, Successor next, long now) {
        var owned = sessions.get(clientId);
        if (owned == null || owned.token != token) return false;
        if (owned.connection == null) {
            handOver(owned, next, now);
            return true;
        }
        effects.add(new TakeOver<>(owned.connection));  // [MQTT-3.1.4-3]
        if (owned.attaching) {
            byConnection.remove(owned.connection);
            owned.connection = null;
            owned.attaching = false;
            owned.expiresAt = MigratedSession.expiresAt(now, owned.sessionExpiryInterval);
            handOver(owned, next, now);
        } else {
            owned.next = next;  // the session follows the connection's release
        }
        return true;
    }

    private void handOver(OwnedSession<C> owned, Successor next, long now) {
        remove(owned.clientId);
        owned.next = null;
        if (owned.sessionExpiryInterval == 0) {
            discard(owned, now);
            effects.transfer(next.shard(), new Handover(owned.clientId, next.token(), Optional.empty()));
            return;
        }
        boolean local = next.shard() == self;
        if (!local) {
            unindex(owned.clientId, owned.subscriptions());
            owned.session.leaveMemory();  // the next shard's budget counts it
        }
        var migrated = new MigratedSession(owned.session, owned.subscriptions(), owned.sessionExpiryInterval,
                owned.expiresAt, Optional.ofNullable(owned.pendingWill), local);
        var moving = crossing.leaving(next.shard(), migrated, now);  // portable to another node
        int indexedOn = local || owned.subscriptions().isEmpty() ? SessionTransfer.NOWHERE : self;  // routes it until peers cut over
        effects.transfer(next.shard(), new Handover(owned.clientId, next.token(), Optional.of(moving), indexedOn));
    }

    /** A session moving within the shard goes on to another shard: its subscriptions leave the indexes. */
    MigratedSession unindexed(String clientId, MigratedSession migrated) {
        if (!migrated.indexed()) return migrated;
        unindex(clientId, migrated.subscriptions());
        return new MigratedSession(migrated.session(), migrated.subscriptions(), migrated.sessionExpiryInterval(),
                migrated.expiresAt(), migrated.will(), false);
    }

    // ---- the session ends

    /** Ends a session held here and tells the home. */
    private void end(OwnedSession<C> owned, long now) {
        remove(owned.clientId);
        discard(owned, now);
        effects.transfer(ring.homeOf(owned.clientId), new Ended(owned.clientId, owned.token));
    }

    /**
     * A session ends: its subscriptions leave the indexes, a will still waiting goes now (the session
     * ended before the delay, 3.1.3.2.2), and messages of shared subscriptions go to other members.
     */
    private void discard(OwnedSession<C> owned, long now) {
        unindex(owned.clientId, owned.subscriptions());
        endRest(owned.clientId, owned.session, Optional.ofNullable(owned.pendingWill), now);
    }

    private void discard(String clientId, MigratedSession migrated, long now) {
        if (migrated.indexed()) unindex(clientId, migrated.subscriptions());
        endRest(clientId, migrated.session(), migrated.will(), now);
    }

    private void endRest(String clientId, Session session, Optional<PendingWill> will, long now) {
        will.ifPresent(pending -> effects.add(new PublishWill<>(clientId, pending.messageAt(now))));
        if (session == null) return;
        for (var message : session.takeSharedMessages()) effects.add(new RedeliverShared<>(clientId, message));
        session.leaveMemory();
        if (session.journal().isKept()) {
            journal.ended(clientId);
            session.journalTo(SessionJournal.NONE);
        }
    }

    private void unindex(String clientId, Map<String, SubscriptionEntry> subscriptions) {
        subscriptions.keySet().forEach(filter -> effects.add(new Unsubscribe<>(clientId, filter)));
    }

    // ---- timers

    void expiryCheck(String clientId, long generation, long now) {
        var owned = sessions.get(clientId);
        if (owned == null || owned.generation != generation || owned.connection != null) return;
        if (now - owned.expiresAt >= 0) {
            expired++;
            end(owned, now);
        } else {
            startExpiryTimer(owned, now);
        }
    }

    void willDelayExpired(String clientId, long generation, long now) {
        var owned = sessions.get(clientId);
        if (owned == null || owned.generation != generation || owned.pendingWill == null) return;
        if (now - owned.pendingWill.publishAt() >= 0) {
            effects.add(new PublishWill<>(clientId, owned.pendingWill.messageAt(now)));
            owned.pendingWill = null;
            if (owned.session.journal().isKept()) journal.will(clientId, null);
        } else {
            startWillTimer(owned, now);
        }
    }

    private void startExpiryTimer(OwnedSession<C> owned, long now) {
        effects.add(new StartExpiryTimer<>(owned.clientId, owned.generation, untilCapped(owned.expiresAt, now)));
    }

    private void startWillTimer(OwnedSession<C> owned, long now) {
        effects.add(new StartWillTimer<>(owned.clientId, owned.generation, untilCapped(owned.pendingWill.publishAt(), now)));
    }

    private static Duration untilCapped(long deadline, long now) {
        return Duration.ofNanos(Math.min(Math.max(0, deadline - now), LONGEST_TIMER.toNanos()));
    }

    // ---- deliveries and subscriptions

    /** A message an offline session could not queue (its limits; the memory budget counts its own). */
    void offlineDropped() { droppedOffline++; }

    /** The client whose session this connection has or is given, or null. */
    String clientOf(C connection) {
        var owned = byConnection.get(connection);
        return owned == null ? null : owned.clientId;
    }

    String attachedClient(C connection) {
        return Optional.ofNullable(byConnection.get(connection)).filter(OwnedSession::isAttached).map(o -> o.clientId).orElse(null);
    }

    boolean holds(String clientId) {
        return sessions.containsKey(clientId);
    }
}
