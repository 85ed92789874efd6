package io.pekquitto.shards;

import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionStage;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.mesh.Barriers;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.DataPlane;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.mesh.PublisherThrottle;
import io.pekquitto.shards.routes.RetainedMessages;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.SharedGroups;
import io.pekquitto.shards.routes.SubscriberDeliveries;
import io.pekquitto.shards.routes.TopicRoutes;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import io.pekquitto.shards.session.ReleaseDraining;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionEffect;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.Sessions;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Tcp;

/**
 * A shard: one single-thread dispatcher that owns a set of client sessions, their subscriptions, a copy
 * of the retained messages and the connection actors (its children, on the same thread). It is a thin
 * actor: the rules live in plain classes it owns, which decide, and it performs what they decide.
 *
 * <ul>
 *   <li>{@link Sessions}: attach, release, takeover, expiry and wills, and the claims by which a session
 *       moves to the connection that claims it, on this shard or another;
 *   <li>{@link ReleaseDraining}: deliveries in transit when a connection lets its session go;
 *   <li>{@link TopicRoutes} and {@link SubscriberDeliveries}: where a topic goes, one message per client;
 *   <li>{@link RetainedMessages}: the retained messages and what a new subscription gets of them;
 *   <li>the mesh: {@link DataPlane} (batched forwards with credits), {@link PublisherThrottle}
 *       (back-pressure), {@link Barriers} (a SUBACK waits until every peer routes the new filter).
 * </ul>
 *
 * A single-shard broker uses the same rules: it is its own home and its only peer is itself.
 */
public final class Shard extends AbstractBehavior<ShardMessage> {

    /** The shard's own messages: from the broker, from its peers, and to itself. */
    public sealed interface Command extends ShardMessage {}

    /** A new TCP connection from a listener, to be served by this shard. */
    public record Accept(Tcp.IncomingConnection connection) implements Command {}

    /** From the Broker: this shard's index and every shard of the broker, itself included. */
    public record Peers(int index, List<ActorRef<ShardMessage>> shards) implements Command {}

    /** Data plane: a batch of publishes forwarded by shard {@code from}. */
    public record Forward(int from, List<Forwarded> items) implements Command {}

    /** Data plane: shard {@code from} has processed one of our batches (a credit back). */
    public record ForwardAck(int from) implements Command {}

    /** Control plane: a message from shard {@code from}, in send order per pair. */
    public record Control(int from, ControlMessage message) implements Command {}

    private record ConnectionStopped(ActorRef<Connection.Command> connection) implements Command {}

    private record SessionExpiryCheck(String clientId, long generation) implements Command {}

    private record WillDelayExpired(String clientId, long generation) implements Command {}

    /** Sent to self when the first delivery or forward of a turn is queued: all of the turn goes out in batches. */
    private enum Flush implements Command { INSTANCE }

    private final BrokerSettings settings;
    private final String dispatcher;
    private final TimerScheduler<ShardMessage> timers;
    private final Materializer materializer;
    private final AtomicIntegerArray connectionsPerShard;
    private final LongSupplier clock;
    private final Sessions<ActorRef<Connection.Command>> sessions;
    private final ReleaseDraining<ActorRef<Connection.Command>> draining = new ReleaseDraining<>();
    private final TopicRoutes routes = new TopicRoutes();
    private final SubscriberDeliveries deliveries = new SubscriberDeliveries();
    private final RetainedMessages retained;
    private final PublisherThrottle<Transport, ActorRef<Connection.Command>> throttle = new PublisherThrottle<>();
    private final Barriers barriers = new Barriers();
    /** Deliveries of this turn per connection, sent as one message each at the next {@link Flush}. */
    private final Map<ActorRef<Connection.Command>, List<Message>> outgoing = new HashMap<>();
    private boolean flushScheduled;
    private long connectionSequence;
    // The mesh; with one shard, peers is just this shard.
    private int index;
    private List<ActorRef<ShardMessage>> peers = List.of();
    private DataPlane dataPlane = new DataPlane(1);

    /**
     * @param mesh                the broker's shards, set once all are spawned; a restarted shard reads it
     * @param connectionsPerShard live connections per shard, for the least-connections placement
     * @param clock               the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
     */
    public static Behavior<ShardMessage> create(BrokerSettings settings, String dispatcher,
                                                AtomicReference<List<ActorRef<ShardMessage>>> mesh,
                                                AtomicIntegerArray connectionsPerShard, LongSupplier clock) {
        return Behaviors.setup(context -> Behaviors.withTimers(
                timers -> new Shard(context, timers, settings, dispatcher, mesh, connectionsPerShard, clock)));
    }

    private Shard(ActorContext<ShardMessage> context, TimerScheduler<ShardMessage> timers, BrokerSettings settings,
                  String dispatcher, AtomicReference<List<ActorRef<ShardMessage>>> mesh,
                  AtomicIntegerArray connectionsPerShard, LongSupplier clock) {
        super(context);
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.timers = timers;
        this.connectionsPerShard = connectionsPerShard;
        this.clock = clock;
        this.materializer = Materializer.createMaterializer(context);
        this.retained = new RetainedMessages(settings.retainAvailable());
        this.sessions = new Sessions<>(clientId -> new Session(clientId, settings.maxQueuedMessages(),
                settings.maxQueuedBytes(), settings.queueQos0Messages()));
        var shards = mesh.get();
        if (shards != null) joinMesh(shards.indexOf(context.getSelf()), shards);  // restarted by the supervisor
    }

    private boolean isMesh() { return peers.size() > 1; }

    @Override
    public Receive<ShardMessage> createReceive() {
        return newReceiveBuilder()
                .onMessage(Accept.class, this::onAccept)
                .onMessage(Peers.class, message -> joinMesh(message.index(), message.shards()))
                .onMessage(ShardRequest.Attach.class, this::onAttach)
                .onMessage(ShardRequest.Route.class, route -> routeMessage(route.publisherId(), route.message()))
                .onMessage(ShardRequest.Subscribe.class, this::onSubscribe)
                .onMessage(ShardRequest.Unsubscribe.class, this::onUnsubscribe)
                .onMessage(ShardRequest.ResumeReading.class, this::onResumeReading)
                .onMessage(ShardRequest.Congested.class, congested -> onCongested(congested.connection()))
                .onMessage(ShardRequest.Relieved.class, relieved -> relieve(relieved.connection()))
                .onMessage(ShardRequest.Release.class, this::onRelease)
                .onMessage(ShardRequest.Bounce.class, bounce -> onBounce(bounce.connection(), bounce.message()))
                .onMessage(ShardRequest.Drained.class, drained -> finishDraining(drained.connection()))
                .onMessage(Forward.class, this::onForward)
                .onMessage(ForwardAck.class, this::onForwardAck)
                .onMessage(Control.class, this::onControl)
                .onMessageEquals(Flush.INSTANCE, this::onFlush)
                .onMessage(ConnectionStopped.class, this::onConnectionStopped)
                .onMessage(SessionExpiryCheck.class, check -> perform(sessions.expiryCheck(check.clientId(), check.generation(), now())))
                .onMessage(WillDelayExpired.class, will -> perform(sessions.willDelayExpired(will.clientId(), will.generation(), now())))
                .build();
    }

    private long now() { return clock.getAsLong(); }

    // ---- connections

    private Behavior<ShardMessage> onAccept(Accept accept) {
        var connection = getContext().spawn(
                Connection.create(settings, getContext().getSelf().narrow(), accept.connection().remoteAddress(), clock),
                "connection-" + (++connectionSequence), DispatcherSelector.sameAsParent());
        getContext().watchWith(connection, new ConnectionStopped(connection));
        // The TCP stage and ours run on this shard's thread: attributes on the joined graph (DESIGN.md).
        accept.connection().flow()
                .join(Flow.fromGraph(new ConnectionStage(connection)))
                .withAttributes(ActorAttributes.dispatcher(dispatcher))
                .run(materializer);
        return this;
    }

    private Behavior<ShardMessage> onAttach(ShardRequest.Attach attach) {
        return perform(sessions.connect(attach.clientId(), attach.connection(), attach.cleanStart(), attach.sessionExpiryInterval()));
    }

    private Behavior<ShardMessage> onRelease(ShardRequest.Release release) {
        var unsent = outgoing.remove(release.connection());
        draining.started(release.connection(), release.clientId(), unsent == null ? List.of() : unsent);
        long now = now();
        var will = release.will().map(delayed -> PendingWill.delayed(delayed.message(), delayed.delaySeconds(), now));
        perform(sessions.release(release.connection(), release.clientId(), release.session(),
                release.sessionExpiryInterval(), will, now));
        // Everything we sent it before this reaches it first, and comes back as a Bounce.
        release.connection().tell(Connection.ReleaseConfirmed.INSTANCE);
        return this;
    }

    private Behavior<ShardMessage> onBounce(ActorRef<Connection.Command> connection, Message message) {
        draining.bounced(connection, message);
        return this;
    }

    private Behavior<ShardMessage> finishDraining(ActorRef<Connection.Command> connection) {
        var drained = draining.finish(connection);
        if (drained == null) return this;
        for (var message : drained.messages()) {
            if (drained.movedTo() != ReleaseDraining.NOT_MOVED && !sessions.holds(drained.clientId())) {
                forward(drained.movedTo(), new Forwarded.ToClient(drained.clientId(), message));  // it follows its session
            } else {
                deliver(drained.clientId(), message);
            }
        }
        return this;
    }

    private Behavior<ShardMessage> onConnectionStopped(ConnectionStopped stopped) {
        var connection = stopped.connection();
        connectionsPerShard.decrementAndGet(index);
        relieve(connection);
        outgoing.remove(connection);
        finishDraining(connection);  // if it failed before draining: what it bounced is kept
        return perform(sessions.connectionStopped(connection, now()));
    }

    /** Does what the session rules decided. */
    private Behavior<ShardMessage> perform(List<SessionEffect<ActorRef<Connection.Command>>> effects) {
        for (var effect : effects) {
            if (effect instanceof SessionEffect.TakeOver<ActorRef<Connection.Command>> takeOver) {
                takeOver.connection().tell(Connection.TakenOver.INSTANCE);
            } else if (effect instanceof SessionEffect.Attach<ActorRef<Connection.Command>> attach) {
                attach.connection().tell(new Connection.Attached(attach.sessionPresent(), attach.session()));
            } else if (effect instanceof SessionEffect.AwaitPeers<ActorRef<Connection.Command>> await) {
                afterPeersApplied(() -> perform(sessions.peersApplied(await.clientId(), await.token())));
            } else if (effect instanceof SessionEffect.PublishWill<ActorRef<Connection.Command>> will) {
                routeMessage(will.clientId(), will.will());
            } else if (effect instanceof SessionEffect.Subscribe<ActorRef<Connection.Command>> subscribe) {
                announce(routes.subscribe(subscribe.clientId(), subscribe.filter(), subscribe.entry()).announce());
            } else if (effect instanceof SessionEffect.Unsubscribe<ActorRef<Connection.Command>> unsubscribe) {
                announce(routes.unsubscribe(unsubscribe.clientId(), unsubscribe.filter()));
            } else if (effect instanceof SessionEffect.RedeliverShared<ActorRef<Connection.Command>> redeliver) {
                redeliverShared(redeliver.clientId(), redeliver.message());
            } else if (effect instanceof SessionEffect.StartExpiryTimer<ActorRef<Connection.Command>> timer) {
                timers.startSingleTimer("expiry-" + timer.clientId(), new SessionExpiryCheck(timer.clientId(), timer.generation()), timer.delay());
            } else if (effect instanceof SessionEffect.StartWillTimer<ActorRef<Connection.Command>> timer) {
                timers.startSingleTimer("will-" + timer.clientId(), new WillDelayExpired(timer.clientId(), timer.generation()), timer.delay());
            } else if (effect instanceof SessionEffect.Transfer<ActorRef<Connection.Command>> transfer) {
                transfer(transfer.shard(), transfer.message());
            }
        }
        return this;
    }

    /** A session transfer step: handled at once when it is for this shard, so a local takeover is one turn. */
    private void transfer(int shard, SessionTransfer message) {
        if (shard == index) {
            perform(sessions.receive(message, now()));
            return;
        }
        if (message instanceof SessionTransfer.Handover handover && handover.session().isPresent()) {
            draining.movedTo(handover.clientId(), shard);  // deliveries still bouncing follow the session
        }
        control(shard, new ControlMessage.Sessions(message));
    }

    // ---- routing

    /** Retains, delivers here, picks shared members, and forwards to the shards with matching filters. */
    private Behavior<ShardMessage> routeMessage(String publisherId, Message message) {
        retained.retain(message);
        var route = routes.routeFor(message.topic());
        deliveries.deliver(route, publisherId, message, this::deliver);
        for (var group : route.groups()) {
            var member = group.next(null);
            if (member != null) sendToMember(group, member, publisherId, message);
        }
        if (!isMesh()) return this;
        if (message.retain()) {
            // Every shard keeps a copy of the retained messages.
            for (int shard = 0; shard < peers.size(); shard++) {
                if (shard != index) forward(shard, new Forwarded.Published(publisherId, message));
            }
        } else {
            for (int shard : route.remoteShards()) forward(shard, new Forwarded.Published(publisherId, message));
        }
        return this;
    }

    private void sendToMember(SharedGroups.Group group, SharedGroups.Member member, String publisherId, Message message) {
        if (member.shard() == index) {
            deliver(member.clientId(), SubscriberDeliveries.forMember(group, member, message));
        } else {
            forward(member.shard(), new Forwarded.ToMember(publisherId, message, member.clientId(), group.sharedFilter()));
        }
    }

    /** A message of a shared subscription whose member is gone (session ended, or moved): another member gets it. */
    private void redeliverShared(String goneClientId, Message message) {
        var group = routes.sharedGroup(message.sharedFilter());
        if (group == null) return;  // nobody left in the group: the message has no subscriber
        var member = group.next(goneClientId);
        if (member != null) sendToMember(group, member, "", message.viaShared(""));
    }

    private void deliver(String clientId, Message message) {
        if (draining.hold(clientId, message)) return;
        var connection = sessions.deliver(clientId, message);
        if (connection != null) {
            var batch = outgoing.get(connection);
            if (batch == null) {
                outgoing.put(connection, batch = new ArrayList<>());
                scheduleFlush();
            }
            batch.add(message);
        } else if (message.isShared() && !sessions.holds(clientId)) {
            redeliverShared(clientId, message);
        }
    }

    // ---- subscriptions

    private Behavior<ShardMessage> onSubscribe(ShardRequest.Subscribe subscribe) {
        var subscriptions = sessions.subscriptionsOf(subscribe.clientId());
        var retainedToSend = new ArrayList<Message>();
        if (subscriptions != null) {
            long now = now();
            for (var request : subscribe.requests()) {
                var entry = new SubscriptionEntry(request.options(), request.subscriptionIdentifier());
                var subscribed = routes.subscribe(subscribe.clientId(), request.topicFilter(), entry);
                announce(subscribed.announce());
                subscriptions.put(request.topicFilter(), entry);
                retainedToSend.addAll(retained.forSubscription(request, subscribed.previous().isEmpty(), now));
            }
        }
        var reply = new Connection.Subscribed(subscribe.packetId(), subscribe.reasons(), retainedToSend);
        afterPeersApplied(() -> {
            flushTo(subscribe.replyTo());
            subscribe.replyTo().tell(reply);
        });
        return this;
    }

    private Behavior<ShardMessage> onUnsubscribe(ShardRequest.Unsubscribe unsubscribe) {
        var subscriptions = sessions.subscriptionsOf(unsubscribe.clientId());
        var reasons = new ArrayList<ReasonCode>(unsubscribe.topicFilters().size());
        for (var filter : unsubscribe.topicFilters()) {
            boolean existed = subscriptions != null && subscriptions.remove(filter) != null;
            if (existed) announce(routes.unsubscribe(unsubscribe.clientId(), filter));
            reasons.add(existed ? ReasonCode.SUCCESS : ReasonCode.NO_SUBSCRIPTION_EXISTED);
        }
        flushTo(unsubscribe.replyTo());  // deliveries routed before the UNSUBSCRIBE go before its UNSUBACK
        unsubscribe.replyTo().tell(new Connection.Unsubscribed(unsubscribe.packetId(), reasons));
        return this;
    }

    // ---- batches: deliveries to connections, forwards to peers

    private void forward(int shard, Forwarded item) {
        if (dataPlane.add(shard, item)) scheduleFlush();
    }

    /** Everything already in our mailbox is handled before the flush: batches form by themselves. */
    private void scheduleFlush() {
        if (flushScheduled) return;
        flushScheduled = true;
        getContext().getSelf().tell(Flush.INSTANCE);
    }

    private Behavior<ShardMessage> onFlush() {
        flushScheduled = false;
        outgoing.forEach((connection, batch) -> connection.tell(new Connection.Deliver(batch)));
        outgoing.clear();
        dataPlane.flush(this::sendBatch);
        return this;
    }

    /** Sends a connection what is batched for it, before a message that must come after. */
    private void flushTo(ActorRef<Connection.Command> connection) {
        var batch = outgoing.remove(connection);
        if (batch != null) connection.tell(new Connection.Deliver(batch));
    }

    private void sendBatch(int destination, List<Forwarded> batch) {
        peers.get(destination).tell(new Forward(index, batch));
    }

    private Behavior<ShardMessage> onForward(Forward forward) {
        for (var item : forward.items()) {
            if (item instanceof Forwarded.Published published) {
                retained.retain(published.message());
                deliveries.deliver(routes.routeFor(published.message().topic()), published.publisherId(), published.message(), this::deliver);
            } else if (item instanceof Forwarded.ToClient toClient) {
                deliver(toClient.clientId(), toClient.message());
            } else if (item instanceof Forwarded.ToMember toMember) {
                deliverToMember(toMember);
            }
        }
        if (throttle.acknowledgeNow(forward.from())) peers.get(forward.from()).tell(new ForwardAck(index));
        return this;
    }

    /** The member a peer picked gets the message, or another one if it left or moved while it travelled. */
    private void deliverToMember(Forwarded.ToMember item) {
        var group = routes.sharedGroup(item.sharedFilter());
        if (group == null) return;
        var member = sessions.holds(item.clientId()) ? group.member(item.clientId()) : null;
        if (member != null && member.shard() == index) {
            deliver(member.clientId(), SubscriberDeliveries.forMember(group, member, item.message()));
            return;
        }
        var other = group.next(item.clientId());
        if (other != null) sendToMember(group, other, item.publisherId(), item.message());
    }

    private Behavior<ShardMessage> onForwardAck(ForwardAck ack) {
        dataPlane.acknowledged(ack.from());
        dataPlane.flush(this::sendBatch);
        throttle.meshRelieved(dataPlane.isBelowLowWater()).forEach(Transport::readMore);
        return this;
    }

    // ---- back-pressure

    private Behavior<ShardMessage> onResumeReading(ShardRequest.ResumeReading resume) {
        if (throttle.mayRead(resume.transport(), dataPlane.isOverloaded())) resume.transport().readMore();
        return this;
    }

    private Behavior<ShardMessage> onCongested(ActorRef<Connection.Command> connection) {
        throttle.congested(connection);
        return this;
    }

    private Behavior<ShardMessage> relieve(ActorRef<Connection.Command> connection) {
        var relief = throttle.relieved(connection, dataPlane.isBelowLowWater());
        for (var peer : relief.acks()) peers.get(peer).tell(new ForwardAck(index));
        relief.readers().forEach(Transport::readMore);
        return this;
    }

    // ---- control plane

    private Behavior<ShardMessage> joinMesh(int newIndex, List<ActorRef<ShardMessage>> shards) {
        index = newIndex;
        peers = List.copyOf(shards);
        dataPlane = new DataPlane(peers.size());
        routes.joinMesh(index, peers.size());
        sessions.joinMesh(index, peers.size());
        if (isMesh()) broadcast(new ControlMessage.Hello());
        return this;
    }

    private void control(int shard, ControlMessage message) {
        peers.get(shard).tell(new Control(index, message));
    }

    private void broadcast(ControlMessage message) {
        for (int shard = 0; shard < peers.size(); shard++) if (shard != index) control(shard, message);
    }

    private void announce(Optional<RouteChange> change) {
        if (change.isPresent() && isMesh()) broadcast(new ControlMessage.Routes(change.get()));
    }

    /** Runs {@code then} once every peer has applied what this shard sent it so far. */
    private void afterPeersApplied(Runnable then) {
        if (!isMesh()) {
            then.run();
            return;
        }
        broadcast(new ControlMessage.Sync(barriers.open(peers.size() - 1, then)));
    }

    private Behavior<ShardMessage> onControl(Control control) {
        int from = control.from();
        var message = control.message();
        if (message instanceof ControlMessage.Routes changed) {
            routes.applyPeerChange(from, changed.change());
        } else if (message instanceof ControlMessage.Sessions transfer) {
            perform(sessions.receive(transfer.transfer(), now()));
        } else if (message instanceof ControlMessage.Sync sync) {
            control(from, new ControlMessage.SyncAck(sync.token()));
        } else if (message instanceof ControlMessage.SyncAck ack) {
            var then = barriers.acknowledged(ack.token());
            if (then != null) then.run();
        } else if (message instanceof ControlMessage.Hello) {
            onHello(from);
        } else if (message instanceof ControlMessage.Resync resync) {
            resync.routes().forEach(change -> routes.applyPeerChange(from, change));
            sessions.restoreHolders(resync.heldSessions());
        }
        return this;
    }

    /** A peer (re)started with empty state: forget what it told us, and tell it what it must know of us. */
    private void onHello(int from) {
        routes.forgetPeer(from);
        dataPlane.reset(from);
        control(from, new ControlMessage.Resync(routes.announcements(), sessions.heldWithHome(from)));
        perform(sessions.peerRestarted(from));
    }
}
