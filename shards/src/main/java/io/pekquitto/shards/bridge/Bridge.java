package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.settings.BridgeSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.tcp.ClientTls;
import io.pekquitto.shards.transport.OutboundLink;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One bridge (docs/bridges.md): a client of the remote broker over a {@link OutboundLink} and a client of
 * this broker as an {@link InProcessClient}, both on the shard whose dispatcher runs it. Out, its local
 * client's subscriptions (No Local, Retain As Published) bring it messages that it sends to the remote,
 * each acknowledged here only once the remote has it: until then it stays in the local session, which
 * queues what follows while the remote is away (and keeps it in the store, with one). In, what the remote
 * sends is published here, and acknowledged to the remote once routed. The link comes back after a drop
 * with {@link Backoff}'s waits; its state is published, retained, on the notification topic.
 */
public final class Bridge extends AbstractBehavior<BridgeCommand> {
    /** How long the remote may take to answer CONNECT. */
    static final Duration CONNACK_TIMEOUT = Duration.ofSeconds(10);

    /** The reason a lazy bridge closes its idle link. */
    private static final String IDLE = "idle";

    private enum LinkState { DOWN, RESOLVING, CONNECTING, AWAITING_CONNACK, UP }

    private final BridgeSettings bridge;
    private final BrokerSettings broker;
    private final LinkNotifications notifications;
    private final TimerScheduler<BridgeCommand> timers;
    private final TopicMapping topics;
    private final LinkAttempts attempts;
    private final Optional<ClientTls> tls;
    private final ActorRef<ReceivedMessage> outgoing;
    private final ActorRef<InProcessClient.Published> published;
    private final OutboundLink.Events linkEvents;
    private ActorRef<InProcessClient.Command> local;
    private LinkState state = LinkState.DOWN;
    private OutboundLink link;
    private long attempt;
    private final Outbox outbox;
    /** The outbox's way to the current link. */
    private final Outbox.Sink toLink = new Outbox.Sink() {
        @Override public boolean isWritable() { return link.isWritable(); }
        @Override public void send(Packet packet) { link.send(packet); }
    };
    private final InboundFlow inbound = new InboundFlow();
    /**
     * PUBLISHes from the remote that wait, in order, while {@code receive-maximum} of its messages wait for
     * their routing here (more would be refused by the local client); the socket is not read meanwhile,
     * so these are at most what one read brought.
     */
    private final ArrayDeque<Publish> held = new ArrayDeque<>();
    /** Why the bridge itself closes the link, said when it is closed; null when the remote or the network closed it. */
    private String closingBecause;
    private boolean pingUnanswered;
    private final LongSupplier clock;
    private long lastSentAt;
    private boolean stopping;

    /**
     * The bridge, to be spawned on the dispatcher of {@code shard} (its outbound socket takes that thread's
     * event loop).
     *
     * @throws io.pekquitto.auth.tls.TlsConfigurationException if its TLS files cannot be used
     */
    public static Behavior<BridgeCommand> create(BridgeSettings bridge, BrokerSettings broker, LocalConnector connector,
                                                 ActorRef<ShardMessage> shard, LongSupplier clock) {
        var tls = bridge.tls().map(files -> ClientTls.load(bridge.name(), files));
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> new Bridge(context, timers, bridge, broker, connector, shard, tls,
                clock)));
    }

    /** How a bridge connects its local client: through the broker, which places and counts it as any in-process client. */
    @FunctionalInterface
    public interface LocalConnector {
        void connect(ConnectOptions options, ActorRef<InProcessClient.ConnectOutcome> replyTo);
    }

    private Bridge(ActorContext<BridgeCommand> context, TimerScheduler<BridgeCommand> timers, BridgeSettings bridge,
                   BrokerSettings broker, LocalConnector connector, ActorRef<ShardMessage> shard, Optional<ClientTls> tls,
                   LongSupplier clock) {
        super(context);
        this.bridge = bridge;
        this.broker = broker;
        this.clock = clock;
        this.lastSentAt = clock.getAsLong();
        this.notifications = new LinkNotifications(bridge, shard, clock);
        this.timers = timers;
        this.tls = tls;
        this.topics = new TopicMapping(bridge.topics());
        this.attempts = new LinkAttempts(bridge, () -> ThreadLocalRandom.current().nextDouble());
        this.outbox = new Outbox(bridge, topics);
        this.outgoing = context.messageAdapter(ReceivedMessage.class, BridgeCommand.Outgoing::new);
        this.published = context.messageAdapter(InProcessClient.Published.class, BridgeCommand.LocallyPublished::new);
        this.linkEvents = BridgeCommand.linkEvents(context.getSelf());
        var options = new ConnectOptions(bridge.localClientId(), bridge.localCleanStart(),
                bridge.localCleanStart() ? 0 : RemotePackets.SESSION_EXPIRY, Optional.empty(), Optional.empty());
        connector.connect(options, context.messageAdapter(InProcessClient.ConnectOutcome.class, BridgeCommand.LocalConnect::new));
        notifications.down();
    }

    @Override
    public Receive<BridgeCommand> createReceive() {
        return newReceiveBuilder()
                .onMessage(BridgeCommand.LocalConnect.class, this::onLocalConnect)
                .onMessage(BridgeCommand.Outgoing.class, this::onOutgoing)
                .onMessage(BridgeCommand.LocallyPublished.class, this::onLocallyPublished)
                .onMessage(BridgeCommand.LinkPackets.class, packets -> packets.link() == link ? onPackets(packets) : this)
                .onMessage(BridgeCommand.LinkWritable.class, writable -> writable.link() == link ? drain() : this)
                .onMessage(BridgeCommand.LinkOpened.class, opened -> opened.link() == link ? onLinkOpened() : this)
                .onMessage(BridgeCommand.LinkClosed.class, closed -> closed.link() == link ? onLinkClosed(closed.why()) : this)
                .onMessage(BridgeCommand.Resolved.class, this::onResolved)
                .onMessage(BridgeCommand.ResolveFailed.class, failed -> failed.attempt() == attempt ? attemptFailed(failed.why()) : this)
                .onMessageEquals(BridgeCommand.Reconnect.INSTANCE, this::connect)
                .onMessageEquals(BridgeCommand.KeepAliveTick.INSTANCE, this::onKeepAliveTick)
                .onMessageEquals(BridgeCommand.ConnAckTimeout.INSTANCE, this::onConnAckTimeout)
                .onMessageEquals(BridgeCommand.IdleCheck.INSTANCE, this::onIdleCheck)
                .onMessageEquals(BridgeCommand.LocalClientStopped.INSTANCE, this::onLocalClientStopped)
                .onMessageEquals(BridgeCommand.Stop.INSTANCE, this::onStop)
                .onSignal(PreRestart.class, signal -> closeLink())
                .onSignal(PostStop.class, signal -> closeLink())
                .build();
    }

    // ---- the local client

    private Behavior<BridgeCommand> onLocalConnect(BridgeCommand.LocalConnect connect) {
        if (connect.outcome() instanceof InProcessClient.Refused refused) {
            throw new IllegalStateException("bridge " + bridge.name() + ": its local client " + bridge.localClientId()
                    + " was refused: " + refused.reason() + " " + refused.why());
        }
        local = ((InProcessClient.Connected) connect.outcome()).client();
        getContext().watchWith(local, BridgeCommand.LocalClientStopped.INSTANCE);
        for (var topic : topics.outgoing()) {
            // No Local: what the bridge brought in does not go back out; Retain As Published: retain flags go on.
            local.tell(new InProcessClient.Subscribe(topic.localFilter(), new SubscriptionOptions(topic.qos(), true, true, 0),
                    outgoing, Optional.empty()));
        }
        if (stopping) {
            local.tell(InProcessClient.Disconnect.NORMAL);
            return this;
        }
        return bridge.startType() == BridgeSettings.StartType.LAZY ? this : connect();
    }

    private Behavior<BridgeCommand> onLocalClientStopped() {
        if (stopping) return Behaviors.stopped();
        // Taken over by a client with its id, or the broker shuts down: the supervisor starts the bridge again.
        throw new IllegalStateException("bridge " + bridge.name() + ": its local client " + bridge.localClientId() + " ended");
    }

    // ---- out: local messages to the remote

    private Behavior<BridgeCommand> onOutgoing(BridgeCommand.Outgoing out) {
        outbox.add(out.message());
        if (state == LinkState.DOWN && bridge.startType() == BridgeSettings.StartType.LAZY
                && outbox.size() >= bridge.threshold() && !stopping) {
            return connect();
        }
        return drain();
    }

    /** Sends what waits, in order, while the link is up, takes writes and has room in the window. */
    private Behavior<BridgeCommand> drain() {
        if (state == LinkState.UP && outbox.drain(toLink)) {
            link.flush();
            lastSentAt = clock.getAsLong();
        }
        return this;
    }

    // ---- in: remote messages here

    private Behavior<BridgeCommand> onPublish(Publish publish) {
        var mapped = topics.toLocal(publish.topic(), publish.qos()).filter(to -> TopicName.isValid(to.topic())
                && !TopicName.isBrokers(to.topic()));
        var step = inbound.received(publish, mapped.isPresent());
        switch (step) {
            case REPLY -> link.send(inbound.reply());
            case ROUTE, ROUTE_ONLY -> {
                var qos = QoS.min(mapped.get().qos(), QoS.of(broker.maxQos()));
                var properties = MessageProperties.of(publish.properties());
                var answer = step == InboundFlow.Step.ROUTE ? Optional.of(published) : Optional.<ActorRef<InProcessClient.Published>>empty();
                local.tell(new InProcessClient.Publish(mapped.get().topic(), publish.payload(), qos,
                        publish.retain() && broker.retainAvailable(), properties, answer));
                // Back-pressure: the remote waits while the local answers it is owed pile up.
                if (!routingRoom()) link.reading(false);
            }
            case NOTHING -> { }
        }
        return this;
    }

    /** Fewer than receive-maximum of the remote's messages wait for their routing here (the local client's bound). */
    private boolean routingRoom() {
        return inbound.awaiting() < broker.receiveMaximum();
    }

    private Behavior<BridgeCommand> onLocallyPublished(BridgeCommand.LocallyPublished answer) {
        if (!answer.published().isSuccess()) {
            getContext().getLog().warn("bridge {}: a message from the remote was not published here: {} {}", bridge.name(),
                    answer.published().reason(), answer.published().why());
        }
        var acknowledgement = inbound.locallyPublished();
        if (link == null) return this;
        if (acknowledgement != null && state == LinkState.UP) link.send(acknowledgement);
        while (!held.isEmpty() && routingRoom()) onPublish(held.poll());
        if (held.isEmpty() && routingRoom()) link.reading(true);
        link.flush();
        return this;
    }

    // ---- the link

    /** Resolves the next address off the shard's thread (a name lookup may block), then connects. */
    private Behavior<BridgeCommand> connect() {
        if (state != LinkState.DOWN || stopping || local == null) return this;
        state = LinkState.RESOLVING;
        long thisAttempt = ++attempt;
        var address = attempts.current();
        var lookups = getContext().getSystem().dispatchers().lookup(DispatcherSelector.blocking());
        getContext().pipeToSelf(CompletableFuture.supplyAsync(() -> LinkAttempts.resolve(address), lookups), (resolved, failure) -> failure == null
                ? new BridgeCommand.Resolved(thisAttempt, address.host(), resolved)
                : new BridgeCommand.ResolveFailed(thisAttempt, "cannot resolve " + address.host() + ": " + failure.getMessage()));
        return this;
    }

    private Behavior<BridgeCommand> onResolved(BridgeCommand.Resolved resolved) {
        if (resolved.attempt() != attempt || state != LinkState.RESOLVING || stopping) return this;
        state = LinkState.CONNECTING;
        link = OutboundLink.connect(resolved.address(), resolved.host(), tls, bridge.protocolVersion(), broker.maxPacketSize(),
                linkEvents);
        return this;
    }

    private Behavior<BridgeCommand> onLinkOpened() {
        state = LinkState.AWAITING_CONNACK;
        link.send(RemotePackets.connect(bridge, broker.receiveMaximum()));
        link.flush();
        timers.startSingleTimer(BridgeCommand.ConnAckTimeout.INSTANCE, CONNACK_TIMEOUT);
        return this;
    }

    private Behavior<BridgeCommand> onPackets(BridgeCommand.LinkPackets packets) {
        pingUnanswered = false;
        for (var packet : packets.packets()) {
            if (link == null) break;  // closed by an earlier packet of this read
            if (state == LinkState.AWAITING_CONNACK) {
                if (packet instanceof ConnAck connAck) {
                    onConnAck(connAck);
                } else {
                    giveUp(packet.type() + " before CONNACK");
                }
                continue;
            }
            onPacket(packet);
        }
        if (link != null) link.flush();
        return drain();
    }

    private void onPacket(Packet packet) {
        if (packet instanceof Publish publish) {
            if (held.isEmpty() && routingRoom()) {
                onPublish(publish);
            } else {
                held.add(publish);
                link.reading(false);
            }
        } else if (packet instanceof PubAck ack) {
            if (ack.reason().isError()) refused(ack.packetId(), ack.reason());
            else outbox.acknowledged(ack.packetId());
        } else if (packet instanceof PubRec rec) {
            // An error reason ends the exchange (4.3.3): the remote will not have the message.
            var release = rec.reason().isError() ? null : outbox.received(rec.packetId());
            if (release != null) link.send(release);
            if (rec.reason().isError()) refused(rec.packetId(), rec.reason());
        } else if (packet instanceof PubComp comp) {
            outbox.completed(comp.packetId());
        } else if (packet instanceof PubRel rel) {
            link.send(inbound.released(rel.packetId()));
        } else if (packet instanceof SubAck subAck) {
            subAck.reasons().stream().filter(ReasonCode::isError).findFirst().ifPresent(reason ->
                    getContext().getLog().warn("bridge {}: the remote refused a subscription: {}", bridge.name(), reason));
        } else if (packet instanceof Disconnect disconnect) {
            giveUp("the remote disconnected: " + disconnect.reason()
                    + disconnect.properties().reasonString().map(why -> " " + why).orElse(""));
        }
        // PINGRESP: heard, which is all it says.
    }

    /** The remote refused a message (an MQTT 5 error reason): it is done here, and said. */
    private void refused(int packetId, ReasonCode reason) {
        var message = outbox.completed(packetId);
        if (message != null) getContext().getLog().warn("bridge {}: the remote refused a message on {}: {}", bridge.name(), message.topic(), reason);
    }

    private void onConnAck(ConnAck connAck) {
        timers.cancel(BridgeCommand.ConnAckTimeout.INSTANCE);
        if (connAck.reason().isError()) {
            giveUp("the remote refused the connect: " + connAck.reason()
                    + connAck.properties().reasonString().map(why -> " " + why).orElse(""));
            return;
        }
        state = LinkState.UP;
        attempts.up();
        if (bridge.protocolVersion() == ProtocolVersion.MQTT_5) outbox.limitTo(connAck.properties().receiveMaximum());
        getContext().getLog().info("bridge {}: connected to {} as {} (session present {})", bridge.name(),
                attempts.current(), bridge.clientId(), connAck.sessionPresent());
        inbound.linkUp(connAck.sessionPresent());
        var incoming = topics.incoming();
        if (!incoming.isEmpty()) link.send(RemotePackets.subscribe(bridge, incoming, 1));
        outbox.resend(connAck.sessionPresent(), toLink);
        // An MQTT 5 remote's Server Keep Alive replaces ours ([MQTT-3.2.2-21]); 0 means none.
        int keepAlive = connAck.properties().serverKeepAlive().orElse(bridge.keepAliveSeconds());
        if (keepAlive > 0) timers.startTimerWithFixedDelay(BridgeCommand.KeepAliveTick.INSTANCE, Duration.ofSeconds(keepAlive));
        if (bridge.startType() == BridgeSettings.StartType.LAZY) {
            timers.startTimerWithFixedDelay(BridgeCommand.IdleCheck.INSTANCE, bridge.idleTimeout().dividedBy(4).plusMillis(1));
        }
        lastSentAt = clock.getAsLong();
        notifications.up();
    }

    /** Closes the link for {@code why}, which {@link #onLinkClosed} says. */
    private void giveUp(String why) {
        closingBecause = why;
        link.close();
    }

    private Behavior<BridgeCommand> onLinkClosed(String closed) {
        var why = closingBecause != null ? closingBecause : closed;
        closingBecause = null;
        held.clear();  // unacknowledged: the remote sends them again
        var was = state;
        link = null;
        state = LinkState.DOWN;
        pingUnanswered = false;
        timers.cancel(BridgeCommand.KeepAliveTick.INSTANCE);
        timers.cancel(BridgeCommand.ConnAckTimeout.INSTANCE);
        timers.cancel(BridgeCommand.IdleCheck.INSTANCE);
        if (stopping) return this;
        if (was != LinkState.UP) return attemptFailed(why);
        notifications.down();
        if (why.equals(IDLE)) {
            getContext().getLog().info("bridge {}: idle for {}, disconnected (start-type lazy)", bridge.name(), bridge.idleTimeout());
        } else {
            getContext().getLog().warn("bridge {}: link to {} lost: {}", bridge.name(), attempts.current(), why);
        }
        return retry(attempts.lost(outbox.size()));
    }

    private Behavior<BridgeCommand> attemptFailed(String why) {
        state = LinkState.DOWN;
        getContext().getLog().warn("bridge {}: cannot connect to {}: {}", bridge.name(), attempts.current(), why);
        return retry(attempts.failed(outbox.size()));
    }

    private Behavior<BridgeCommand> retry(Optional<Duration> wait) {
        wait.ifPresent(after -> timers.startSingleTimer(BridgeCommand.Reconnect.INSTANCE, after));
        if (wait.isEmpty() && bridge.startType() == BridgeSettings.StartType.ONCE) {
            getContext().getLog().warn("bridge {}: start-type once: not connecting again", bridge.name());
        }
        return this;
    }

    /** [MQTT-3.1.2-24] a PINGREQ each Keep Alive; a link that answered nothing since the last one is given up. */
    private Behavior<BridgeCommand> onKeepAliveTick() {
        if (state != LinkState.UP) return this;
        if (pingUnanswered) {
            giveUp("no answer from the remote within a keep-alive period");
            return this;
        }
        pingUnanswered = true;
        link.send(PingReq.INSTANCE);
        link.flush();
        return this;
    }

    private Behavior<BridgeCommand> onConnAckTimeout() {
        if (state == LinkState.AWAITING_CONNACK) giveUp("no CONNACK within " + CONNACK_TIMEOUT.toSeconds() + "s");
        return this;
    }

    /** A lazy bridge's link goes once nothing went out for idle-timeout and nothing waits. */
    private Behavior<BridgeCommand> onIdleCheck() {
        boolean idle = outbox.size() == 0 && clock.getAsLong() - lastSentAt >= bridge.idleTimeout().toNanos();
        if (state == LinkState.UP && idle) {
            link.send(Disconnect.NORMAL);
            giveUp(IDLE);
        }
        return this;
    }

    // ---- stopping

    private Behavior<BridgeCommand> onStop() {
        stopping = true;
        if (link != null && state == LinkState.UP) link.send(Disconnect.NORMAL);
        closeLink();
        if (local != null) local.tell(InProcessClient.Disconnect.NORMAL);
        notifications.down();
        return local == null ? Behaviors.stopped() : this;  // stops when its local client has
    }

    private Behavior<BridgeCommand> closeLink() {
        if (link != null) link.close();
        return this;
    }
}
