package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.store.ShardPersistence;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * The shard's hands for the session rules ({@link Sessions}): it performs the effects they decide
 * (tell a connection, index a subscription, start a timer, move a session over the mesh), and at
 * the broker's start it brings back from the store the persistent sessions whose home the shard is.
 * On the shard's thread, as part of the {@link Shard}.
 */
final class ShardSessions {
    private final Sessions<ConnectionRef> sessions;
    private final ReleaseDraining<ConnectionRef> draining;
    private final TopicRoutes routes;
    private final Mesh mesh;
    private final Router router;
    private final ShardPersistence persistence;
    private final TimerScheduler<ShardMessage> timers;
    private final LongSupplier clock;
    private final Function<String, Session> newSession;
    private final Logger log;
    /** What the start recovered of the retained messages, for the start's one log line. */
    private int retainedRecovered;
    private boolean leaving;
    private ShardCrossings crossings;
    private long retainedNanos;

    ShardSessions(Sessions<ConnectionRef> sessions, ReleaseDraining<ConnectionRef> draining, TopicRoutes routes, Mesh mesh,
                  Router router, ShardPersistence persistence, TimerScheduler<ShardMessage> timers, LongSupplier clock,
                  Function<String, Session> newSession, Logger log) {
        this.sessions = sessions;
        this.draining = draining;
        this.routes = routes;
        this.mesh = mesh;
        this.router = router;
        this.persistence = persistence;
        this.timers = timers;
        this.clock = clock;
        this.newSession = newSession;
        this.log = log;
    }

    /** This shard's node leaves the cluster: its sessions go to other nodes ({@link ShardEvacuation}). */
    void leaving() {
        leaving = true;
    }

    void crossings(ShardCrossings shardCrossings) {
        crossings = shardCrossings;
    }

    /** A session transfer from a peer or from this shard; a later claim takes a session only once it crossed here. */
    void receive(SessionTransfer transfer) {
        if (transfer instanceof SessionTransfer.Relinquish && crossings.rules().deferUntilCrossed(transfer)) return;
        perform(sessions.receive(transfer, clock.getAsLong()));
    }

    /** Does what the session rules decided. */
    void perform(List<SessionEffect<ConnectionRef>> effects) {
        for (var effect : effects) {
            // A session leaving with subscriptions indexed here: they route here until every peer cut over.
            if (effect instanceof SessionEffect.Transfer<ConnectionRef> transfer && transfer.shard() != mesh.index()
                    && transfer.message() instanceof SessionTransfer.Handover handover && handover.indexedOn() == mesh.index()) {
                crossings.rules().left(handover.clientId(), transfer.shard(), mesh.peerIds());
            }
        }
        for (var effect : effects) {
            if (effect instanceof SessionEffect.TakeOver<ConnectionRef> takeOver) {
                // Leaving, a connection that has its session sees the server shut down (0x8B) as the session moves on.
                var connection = takeOver.connection();
                boolean shutDown = leaving && sessions.attachedClient(connection) != null;
                connection.tell(shutDown ? Connection.ServerShuttingDown.INSTANCE : Connection.TakenOver.INSTANCE);
            } else if (effect instanceof SessionEffect.Attach<ConnectionRef> attach) {
                mesh.announce(routes.attached(attach.session().clientId()));  // its new connection takes work
                attach.connection().tell(new Connection.Attached(attach.sessionPresent(), attach.session()));
            } else if (effect instanceof SessionEffect.Refuse<ConnectionRef> refuse) {
                refuse.connection().tell(new Connection.Refused(refuse.reason(), refuse.why()));
            } else if (effect instanceof SessionEffect.AwaitPeers<ConnectionRef> await) {
                mesh.afterPeersApplied(() -> perform(sessions.peersApplied(await.clientId(), await.token())));
            } else if (effect instanceof SessionEffect.PublishWill<ConnectionRef> will) {
                router.route(will.clientId(), will.will());
            } else if (effect instanceof SessionEffect.Subscribe<ConnectionRef> subscribe) {
                // A session arriving or recovered: no connection has it yet.
                mesh.announce(routes.subscribe(subscribe.clientId(), subscribe.filter(), subscribe.entry(), false).announce());
            } else if (effect instanceof SessionEffect.Unsubscribe<ConnectionRef> unsubscribe) {
                if (!crossings.rules().keepUntilCut(unsubscribe.clientId(), unsubscribe.filter())) {
                    mesh.announce(routes.unsubscribe(unsubscribe.clientId(), unsubscribe.filter()));
                }
            } else if (effect instanceof SessionEffect.Crossed<ConnectionRef> crossed) {
                // After its subscriptions were announced (above, in order): every peer cuts over, this one too.
                crossings.rules().arrived(crossed.clientId(), crossed.from(), crossed.discarded(), mesh.peerIds());
                mesh.broadcast(new ControlMessage.Moved(crossed.clientId(), crossed.from()));
                crossings.cutOver(crossed.clientId(), crossed.from(), mesh.index());
            } else if (effect instanceof SessionEffect.RedeliverShared<ConnectionRef> redeliver) {
                router.redeliverShared(redeliver.clientId(), redeliver.message());
            } else if (effect instanceof SessionEffect.StartExpiryTimer<ConnectionRef> timer) {
                var check = new ShardInternal.SessionExpiryCheck(timer.clientId(), timer.generation());
                timers.startSingleTimer("expiry-" + timer.clientId(), check, timer.delay());
            } else if (effect instanceof SessionEffect.StartWillTimer<ConnectionRef> timer) {
                var due = new ShardInternal.WillDelayExpired(timer.clientId(), timer.generation());
                timers.startSingleTimer("will-" + timer.clientId(), due, timer.delay());
            } else if (effect instanceof SessionEffect.Transfer<ConnectionRef> transfer) {
                transfer(transfer.shard(), transfer.message());
            } else if (effect instanceof SessionEffect.Homes<ConnectionRef> homes) {
                mesh.control(homes.shard(), new ControlMessage.Homes(homes.epoch(), homes.round(), homes.holders()));
            } else {
                throw new IllegalStateException("unhandled session effect " + effect);  // a new variant is handled here
            }
        }
    }

    /** The store writes again: live connections read back what their queues kept in it meanwhile (a parked one queues nothing). */
    void storeRecovered() {
        for (var connection : sessions.connections()) {
            if (connection.parked() == null) connection.tell(new Connection.Deliver(List.of()));
        }
    }

    /** A session transfer step: handled at once when it is for this shard, so a local takeover is one turn. */
    private void transfer(int shard, SessionTransfer message) {
        if (shard == mesh.index()) {
            receive(message);
            return;
        }
        if (message instanceof SessionTransfer.Handover handover && handover.session().isPresent()) {
            draining.movedTo(handover.clientId(), shard);  // deliveries still bouncing follow the session
            // What this shard journaled of it is written before the next shard writes it, or reads it back
            // (one on another node: its end here, so that it is never in two stores); meanwhile the shard
            // goes on. While a write fails, nothing will be written soon: it goes now.
            long batch = persistence.flush();
            if (!persistence.isWritten(batch) && !persistence.hasUnwritten()) mesh.holdUntilWritten(shard, batch);
        }
        mesh.control(shard, new ControlMessage.Sessions(message));
    }

    /**
     * The stored retained messages, into the shard's copy: at the start (told in the start's line) and
     * after a restart by the supervisor ({@code restarted}: told now).
     */
    void recoverRetained(Consumer<Message> into, boolean restarted) {
        long started = clock.getAsLong();
        retainedRecovered = persistence.recoverRetained(into);
        retainedNanos = clock.getAsLong() - started;
        if (restarted && retainedRecovered > 0) log.info("{} retained messages recovered from the store", retainedRecovered);
    }

    /**
     * The persistent sessions whose home this shard is, offline until their clients connect: their
     * subscriptions are announced now, and their timers start once every peer routes to them, so that
     * a will due meanwhile reaches subscribers recovered on other shards. One log line says what came
     * back, retained messages included, and how long it took.
     */
    void recover() {
        if (!persistence.isDurable()) return;
        long started = clock.getAsLong();
        var recovered = persistence.recoverSessions(mesh.index(), mesh.localShards(), newSession);
        var clientIds = new ArrayList<String>(recovered.size());
        long messages = 0;
        for (var session : recovered) {
            perform(sessions.recover(session));
            clientIds.add(session.clientId());
            messages += session.session().queuedCount() + session.session().inflightCount();
        }
        if (!clientIds.isEmpty()) mesh.afterPeersApplied(() -> perform(sessions.startRecoveredTimers(clientIds, clock.getAsLong())));
        log.info("shard {} recovered from the store in {} ms: {} sessions with {} messages, {} retained messages",
                mesh.index(), (clock.getAsLong() - started + retainedNanos) / 1_000_000, recovered.size(), messages,
                retainedRecovered);
    }
}
