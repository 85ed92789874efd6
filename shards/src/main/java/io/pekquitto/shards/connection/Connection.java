package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.protocol.UnsubAck;
import io.pekquitto.protocol.Unsubscribe;
import io.pekquitto.protocol.Will;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.Shard;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscribeRequest;
import io.pekquitto.shards.settings.BrokerSettings;
import java.net.InetSocketAddress;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.util.ByteString;

/**
 * One client connection: the MQTT protocol state of a network connection (CONNECT handshake, keep-alive,
 * QoS handshakes in both directions, topic aliases, negotiated limits) and, while connected, the
 * client's {@link Session}. It lives on its shard's thread, reads packets from its {@link Transport},
 * asks the {@link Shard} to route, subscribe and attach, and writes what the rules answer.
 *
 * <p>Phases: awaiting CONNECT, attaching (CONNECT accepted, waiting for the shard to hand over the
 * session), connected, closing. A connection never stops while attaching: the shard is about to hand
 * it a session, which it must hand back.
 */
public final class Connection extends AbstractBehavior<Connection.Command> {

    public sealed interface Command {}

    /** From the stage: the transport is ready; bytes follow. */
    public record TransportReady(Transport transport) implements Command {}

    /** From the stage: the next chunk read from the socket. */
    public record BytesReceived(ByteString bytes) implements Command {}

    /** From the stage: the socket closed or failed. */
    public record TransportClosed(String cause) implements Command {}

    /** From the shard: the session this connection now serves. */
    public record Attached(boolean sessionPresent, Session session) implements Command {}

    /**
     * From the shard: messages for this client, in order, QoS and retain already decided by the
     * subscriptions. The shard batches what it routes in one turn, so they go out in one socket write.
     */
    public record Deliver(List<Message> messages) implements Command {}

    /** From the shard: SUBSCRIBE applied; retained messages to send after the SUBACK. */
    public record Subscribed(int packetId, List<ReasonCode> reasons, List<Message> retained) implements Command {}

    /** From the shard: UNSUBSCRIBE applied. */
    public record Unsubscribed(int packetId, List<ReasonCode> reasons) implements Command {}

    /** From the shard: our Release is applied; deliveries sent before it have reached us. */
    public enum ReleaseConfirmed implements Command { INSTANCE }

    /** From the shard: another connection claimed this client id ([MQTT-3.1.4-3]). */
    public enum TakenOver implements Command { INSTANCE }

    /** Test hook for the supervision tests: the connection throws; it is stopped and its socket closed. */
    public enum InjectFailure implements Command { INSTANCE }

    private enum KeepAliveCheck implements Command { INSTANCE }

    private enum ConnectTimeout implements Command { INSTANCE }

    private enum CongestionTimeout implements Command { INSTANCE }

    private enum Phase { AWAITING_CONNECT, ATTACHING, CONNECTED, CLOSED }

    /** How long a congested client may hold publishers back before it counts as stuck. */
    private static final Duration CONGESTION_TIMEOUT = Duration.ofSeconds(2);

    /** Above this many bytes waiting for the socket, QoS 0 deliveries are dropped (a slow reader). */
    private static final long OUTBOUND_QOS0_LIMIT = 1 << 20;

    private final BrokerSettings settings;
    private final ActorRef<Shard.Command> shard;
    private final InetSocketAddress remote;
    private final TimerScheduler<Command> timers;
    private final PacketReader reader;

    private Transport transport;
    private Phase phase = Phase.AWAITING_CONNECT;
    private ProtocolVersion version = ProtocolVersion.MQTT_3_1_1;
    private ConnectNegotiation.Terms terms;
    private String clientId = "";
    private Optional<Will> will = Optional.empty();
    private Session session;
    private InboundTopicAliases topicAliases;
    private OutboundTopicAliases outboundAliases;
    private long sessionExpiryInterval;
    private long lastPacketNanos;
    /** Set when closing while attaching: release the session as soon as it arrives. */
    private boolean publishWillOnRelease;
    private long droppedQos0;
    /** Writes collected while corked (a chunk's acknowledgements, a batch of deliveries). */
    private boolean corked;
    private ByteString corkedBytes = ByteString.emptyByteString();
    /** The session went back to the shard; waiting for {@link ReleaseConfirmed}. */
    private boolean released;
    /** Whether the shard holds publishers back for this client's queue. */
    private boolean congested;
    /** Set when a congestion timed out; cleared once the queue has drained. */
    private boolean gaveUpCongestion;
    /** Whether messages were routed since the last chunk was requested (see {@link #requestBytes()}). */
    private boolean routedSinceRead;

    public static Behavior<Command> create(BrokerSettings settings, ActorRef<Shard.Command> shard, InetSocketAddress remote) {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> new Connection(context, timers, settings, shard, remote)));
    }

    private Connection(ActorContext<Command> context, TimerScheduler<Command> timers, BrokerSettings settings,
                       ActorRef<Shard.Command> shard, InetSocketAddress remote) {
        super(context);
        this.settings = settings;
        this.shard = shard;
        this.remote = remote;
        this.timers = timers;
        this.reader = new PacketReader(settings.maxPacketSize());
        timers.startSingleTimer(ConnectTimeout.INSTANCE, settings.connectTimeout());
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(TransportReady.class, this::onTransportReady)
                .onMessage(BytesReceived.class, this::onBytesReceived)
                .onMessage(TransportClosed.class, this::onTransportClosed)
                .onMessage(Attached.class, this::onAttached)
                .onMessage(Deliver.class, this::onDeliver)
                .onMessage(Subscribed.class, this::onSubscribed)
                .onMessage(Unsubscribed.class, this::onUnsubscribed)
                .onMessageEquals(TakenOver.INSTANCE, this::onTakenOver)
                .onMessageEquals(ReleaseConfirmed.INSTANCE, this::onReleaseConfirmed)
                .onMessageEquals(KeepAliveCheck.INSTANCE, this::onKeepAliveCheck)
                .onMessageEquals(InjectFailure.INSTANCE, () -> {
                    throw new IllegalStateException("failure injected into the connection of [" + clientId + "]");
                })
                .onMessageEquals(ConnectTimeout.INSTANCE, this::onConnectTimeout)
                .onMessageEquals(CongestionTimeout.INSTANCE, this::onCongestionTimeout)
                .onSignal(PostStop.class, signal -> onPostStop())
                .build();
    }

    // ---- transport

    private Behavior<Command> onTransportReady(TransportReady ready) {
        transport = ready.transport();
        transport.readMore();
        return this;
    }

    private Behavior<Command> onBytesReceived(BytesReceived received) {
        if (phase == Phase.CLOSED) return this;
        reader.feed(received.bytes().asByteBuffer());
        lastPacketNanos = System.nanoTime();
        cork();  // the acknowledgements of a whole chunk go out in one write
        var next = readPackets();
        uncork();
        return next;
    }

    /** Handles buffered packets until more bytes are needed, the connection closes, or CONNECT awaits the shard. */
    private Behavior<Command> readPackets() {
        while (phase == Phase.AWAITING_CONNECT || phase == Phase.CONNECTED) {
            Packet packet;
            try {
                packet = reader.poll();
            } catch (MalformedPacketException e) {
                return onMalformed(e);
            }
            if (packet == null) {
                requestBytes();
                return this;
            }
            var next = handle(packet);
            if (next != this) return next;
        }
        return this;
    }

    /**
     * Asks for the next chunk. If this chunk routed messages, the shard asks on our behalf once it has
     * routed them (its mailbox is FIFO): a publisher can never run ahead of its shard, so the shard's
     * mailbox stays bounded instead of growing with a flood.
     */
    private void requestBytes() {
        if (routedSinceRead) {
            routedSinceRead = false;
            shard.tell(new Shard.ResumeReading(transport));
        } else {
            transport.readMore();
        }
    }

    private Behavior<Command> onMalformed(MalformedPacketException e) {
        getContext().getLog().debug("[{}] {}: {}", clientId, e.reason(), e.getMessage());
        if (phase == Phase.AWAITING_CONNECT) {
            version = reader.version();
            // Errors before CONNACK go in CONNACK ([MQTT-4.13.1-1] allows a CONNACK before closing).
            if (version.hasProperties() || e.reason() == ReasonCode.UNSUPPORTED_PROTOCOL_VERSION) {
                write(ConnectNegotiation.refusal(connAckReason(e.reason())));
            }
            return closeNow();
        }
        return disconnect(e.reason(), e.getMessage(), true);
    }

    private static ReasonCode connAckReason(ReasonCode reason) {
        return reason.isAllowedIn(io.pekquitto.protocol.PacketType.CONNACK) ? reason : ReasonCode.MALFORMED_PACKET;
    }

    private Behavior<Command> onTransportClosed(TransportClosed closed) {
        if (phase == Phase.CLOSED) return this;  // we closed it, or it closed while the session is attaching
        getContext().getLog().debug("[{}] connection lost: {}", clientId, closed.cause());
        return end(true);  // no DISCONNECT: abnormal, the will is published ([MQTT-3.1.2-8])
    }

    // ---- packets from the client

    private Behavior<Command> handle(Packet packet) {
        if (phase == Phase.AWAITING_CONNECT) {
            if (packet instanceof Connect connect) return onConnect(connect);
            // [MQTT-3.1.0-1] the first packet must be CONNECT; no DISCONNECT before CONNACK.
            getContext().getLog().debug("[{}] {} before CONNECT from [{}]", clientId, packet.type(), remote);
            return closeNow();
        }
        return switch (packet.type()) {
            case CONNECT -> disconnect(ReasonCode.PROTOCOL_ERROR, "second CONNECT", true);  // [MQTT-3.1.0-2]
            case PUBLISH -> onPublish((Publish) packet);
            case PUBACK -> onPubAck((PubAck) packet);
            case PUBREC -> onPubRec((PubRec) packet);
            case PUBREL -> onPubRel((PubRel) packet);
            case PUBCOMP -> onPubComp((PubComp) packet);
            case SUBSCRIBE -> onSubscribe((Subscribe) packet);
            case UNSUBSCRIBE -> onUnsubscribe((Unsubscribe) packet);
            case PINGREQ -> {
                write(PingResp.INSTANCE);  // [MQTT-3.12.4-1]
                yield this;
            }
            case DISCONNECT -> onDisconnect((Disconnect) packet);
            case AUTH -> disconnect(ReasonCode.PROTOCOL_ERROR, "AUTH without an authentication method", true);
            case CONNACK, SUBACK, UNSUBACK, PINGRESP ->
                    disconnect(ReasonCode.PROTOCOL_ERROR, packet.type() + " is sent by servers only", true);
        };
    }

    private Behavior<Command> onConnect(Connect connect) {
        version = connect.version();
        var outcome = ConnectNegotiation.negotiate(connect, settings);
        if (outcome.terms().isEmpty()) {
            getContext().getLog().debug("[{}] CONNECT refused: [{}] {}", connect.clientId(), outcome.refusal(), outcome.why());
            write(ConnectNegotiation.refusal(outcome.refusal()));
            return closeNow();
        }
        terms = outcome.terms().get();
        clientId = terms.clientId();
        will = connect.will();
        sessionExpiryInterval = terms.sessionExpiryInterval();
        topicAliases = new InboundTopicAliases(version.hasProperties() ? settings.topicAliasMaximum() : 0);
        outboundAliases = new OutboundTopicAliases(terms.clientTopicAliasMaximum());
        timers.cancel(ConnectTimeout.INSTANCE);
        phase = Phase.ATTACHING;
        shard.tell(new Shard.Connect(clientId, connect.cleanStart(), sessionExpiryInterval, getContext().getSelf()));
        return this;
    }

    private Behavior<Command> onAttached(Attached attached) {
        session = attached.session();
        if (phase == Phase.CLOSED) {
            // Closed while the shard was attaching: hand the session straight back.
            return release(publishWillOnRelease);
        }
        phase = Phase.CONNECTED;
        cork();
        write(new ConnAck(attached.sessionPresent(), ReasonCode.SUCCESS, terms.connAckProperties()));
        getContext().getLog().debug("[{}] connected from [{}] ({}, session present {})",
                clientId, remote, version, attached.sessionPresent());
        if (terms.keepAliveSeconds() > 0) scheduleKeepAliveCheck(keepAliveLimit());
        if (attached.sessionPresent()) session.resend(this::write);  // [MQTT-4.4.0-1]
        drainQueue();
        var next = readPackets();
        uncork();
        return next;
    }

    private Behavior<Command> onPublish(Publish publish) {
        String topic = publish.topic();
        var properties = publish.properties();
        if (version.hasProperties()) {
            if (!properties.subscriptionIdentifiers().isEmpty()) {
                return disconnect(ReasonCode.PROTOCOL_ERROR, "PUBLISH from a client with a Subscription Identifier", true);
            }
            var alias = properties.topicAlias();
            if (alias.isPresent()) {
                if (!topicAliases.isInRange(alias.get())) {
                    return disconnect(ReasonCode.TOPIC_ALIAS_INVALID, "topic alias out of range", true);
                }
                if (topic.isEmpty()) {
                    topic = topicAliases.resolve(alias.get());
                    if (topic == null) return disconnect(ReasonCode.PROTOCOL_ERROR, "unknown topic alias", true);
                } else {
                    topicAliases.set(alias.get(), topic);
                }
                properties = properties.toBuilder().remove(PropertyId.TOPIC_ALIAS).build();
            }
        }
        if (!TopicName.isValid(topic)) return disconnect(ReasonCode.TOPIC_NAME_INVALID, "invalid topic name", true);
        if (publish.qos().value() > settings.maxQos()) {
            return disconnect(ReasonCode.QOS_NOT_SUPPORTED, "QoS above the server maximum", true);  // [MQTT-3.2.2-11]
        }
        if (publish.retain() && !settings.retainAvailable()) {
            return disconnect(ReasonCode.RETAIN_NOT_SUPPORTED, "retain is not available", true);  // [MQTT-3.2.2-14]
        }
        if (properties.payloadFormatIndicator().orElse(0) == 1 && !isUtf8(publish.payload())) {
            // 3.3.2.3.2: a payload announced as UTF-8 that is not may be refused with 0x99.
            switch (publish.qos()) {
                case AT_MOST_ONCE -> {
                    return disconnect(ReasonCode.PAYLOAD_FORMAT_INVALID, "payload is not UTF-8", true);
                }
                case AT_LEAST_ONCE -> write(new PubAck(publish.packetId(), ReasonCode.PAYLOAD_FORMAT_INVALID,
                        problem("payload is not UTF-8")));
                case EXACTLY_ONCE -> write(new PubRec(publish.packetId(), ReasonCode.PAYLOAD_FORMAT_INVALID,
                        problem("payload is not UTF-8")));
            }
            return this;
        }
        var message = Message.of(publish, topic, properties);
        switch (publish.qos()) {
            case AT_MOST_ONCE -> route(message);
            case AT_LEAST_ONCE -> {
                route(message);
                write(new PubAck(publish.packetId()));  // [MQTT-4.3.2-2]
            }
            case EXACTLY_ONCE -> {
                if (session.firstReceipt(publish.packetId())) {
                    // [MQTT-3.3.4-9] a client must not exceed our Receive Maximum; 3.1.1 clients are never told it.
                    if (session.awaitingPubRelCount() > settings.receiveMaximum()
                            && settings.strictReceiveMaximum() && version.hasProperties()) {
                        return disconnect(ReasonCode.RECEIVE_MAXIMUM_EXCEEDED, "more QoS 2 PUBLISHes than Receive Maximum", true);
                    }
                    route(message);
                }
                write(new PubRec(publish.packetId()));  // [MQTT-4.3.3-9] a resend is acknowledged, not delivered again
            }
        }
        return this;
    }

    /**
     * A Reason String for an acknowledgement, or none if the client asked for no problem information
     * ([MQTT-3.1.2-29]: then only PUBLISH, CONNACK and DISCONNECT may carry one).
     */
    private Properties problem(String reason) {
        return terms.problemInformation()
                ? Properties.builder().set(PropertyId.REASON_STRING, reason).build()
                : Properties.NONE;
    }

    private static boolean isUtf8(io.pekquitto.protocol.Binary payload) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(payload.asByteBuffer());
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private void route(Message message) {
        routedSinceRead = true;
        shard.tell(new Shard.Route(clientId, message));
    }

    private Behavior<Command> onPubAck(PubAck ack) {
        if (session.acknowledge(ack.packetId())) drainQueue();
        return this;
    }

    private Behavior<Command> onPubRec(PubRec rec) {
        if (rec.reason().isError()) {
            session.abandon(rec.packetId());
            drainQueue();
        } else if (session.received(rec.packetId())) {
            write(new PubRel(rec.packetId()));  // [MQTT-4.3.3-4]
        } else if (version.hasProperties()) {
            write(new PubRel(rec.packetId(), ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, Properties.NONE));
        }
        return this;
    }

    private Behavior<Command> onPubRel(PubRel rel) {
        boolean known = session.release(rel.packetId());
        write(known || !version.hasProperties()
                ? new PubComp(rel.packetId())
                : new PubComp(rel.packetId(), ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, Properties.NONE));
        return this;
    }

    private Behavior<Command> onPubComp(PubComp comp) {
        if (session.complete(comp.packetId())) drainQueue();
        return this;
    }

    private Behavior<Command> onSubscribe(Subscribe subscribe) {
        int subscriptionId = 0;
        if (version.hasProperties() && !subscribe.properties().subscriptionIdentifiers().isEmpty()) {
            subscriptionId = subscribe.properties().subscriptionIdentifiers().get(0);
        }
        var reasons = new ArrayList<ReasonCode>(subscribe.subscriptions().size());
        var requests = new ArrayList<SubscribeRequest>(subscribe.subscriptions().size());
        for (var subscription : subscribe.subscriptions()) {
            String filter = subscription.topicFilter();
            var options = subscription.options();
            if (!TopicFilter.isValid(filter)) {
                reasons.add(ReasonCode.TOPIC_FILTER_INVALID);  // 3.1.1 encodes it as 0x80
            } else if (TopicFilter.isShared(filter) && options.noLocal()) {
                // [MQTT-3.8.3-4] No Local on a shared subscription is a Protocol Error.
                return disconnect(ReasonCode.PROTOCOL_ERROR, "No Local on a shared subscription", true);
            } else {
                var granted = QoS.min(options.maximumQos(), QoS.of(settings.maxQos()));
                requests.add(new SubscribeRequest(filter, new SubscriptionOptions(granted, options.noLocal(),
                        options.retainAsPublished(), options.retainHandling()), subscriptionId));
                reasons.add(ReasonCode.granted(granted));  // [MQTT-3.9.3-1] granted may be lower than asked
            }
        }
        shard.tell(new Shard.Subscribe(clientId, subscribe.packetId(), reasons, requests, getContext().getSelf()));
        return this;
    }

    private Behavior<Command> onSubscribed(Subscribed subscribed) {
        if (phase != Phase.CONNECTED) return this;
        cork();
        write(new SubAck(subscribed.packetId(), subscribed.reasons(), Properties.NONE));  // [MQTT-3.8.4-1]
        for (var message : subscribed.retained()) deliver(message);
        uncork();
        return this;
    }

    private Behavior<Command> onUnsubscribe(Unsubscribe unsubscribe) {
        shard.tell(new Shard.Unsubscribe(clientId, unsubscribe.packetId(), unsubscribe.topicFilters(), getContext().getSelf()));
        return this;
    }

    private Behavior<Command> onUnsubscribed(Unsubscribed unsubscribed) {
        if (phase != Phase.CONNECTED) return this;
        write(new UnsubAck(unsubscribed.packetId(), unsubscribed.reasons(), Properties.NONE));  // [MQTT-3.10.4-4]
        return this;
    }

    private Behavior<Command> onDisconnect(Disconnect disconnect) {
        if (version.hasProperties()) {
            var newExpiry = disconnect.properties().sessionExpiryIntervalIfPresent();
            if (newExpiry.isPresent()) {
                if (sessionExpiryInterval == 0 && newExpiry.get() != 0) {
                    // [MQTT-3.14.2-2] a session that was to end with the connection cannot be extended.
                    return disconnect(ReasonCode.PROTOCOL_ERROR, "Session Expiry Interval set on DISCONNECT after 0 on CONNECT", true);
                }
                sessionExpiryInterval = Math.min(newExpiry.get(), settings.maxSessionExpiry().getSeconds());
            }
        }
        // [MQTT-3.14.4-3] a normal DISCONNECT discards the will; 0x04 asks for it to be published.
        boolean publishWill = disconnect.reason() == ReasonCode.DISCONNECT_WITH_WILL_MESSAGE;
        getContext().getLog().debug("[{}] disconnected: [{}]", clientId, disconnect.reason());
        return end(publishWill);
    }

    // ---- deliveries from the shard

    private Behavior<Command> onDeliver(Deliver deliver) {
        cork();
        for (var message : deliver.messages()) {
            if (phase == Phase.CONNECTED) {
                deliver(message);
            } else if (session != null) {
                session.enqueue(message, false);
            } else if (released) {
                // Sent by the shard before it saw our Release: back to the shard, in order, not lost.
                shard.tell(new Shard.Bounce(getContext().getSelf(), message));
            }
        }
        uncork();
        return this;
    }

    /** The shard has applied our Release: everything it sent us before has been bounced back. */
    private Behavior<Command> onReleaseConfirmed() {
        shard.tell(new Shard.Drained(getContext().getSelf()));
        return Behaviors.stopped();
    }

    private void deliver(Message message) {
        if (message.isExpired(System.nanoTime())) return;  // [MQTT-3.3.2-5]
        if (!version.hasProperties() && !message.properties().isEmpty()) {
            message = message.with(message.qos(), message.retain(), Properties.NONE);
        }
        if (message.qos() == QoS.AT_MOST_ONCE) {
            if (transport.bufferedBytes() > OUTBOUND_QOS0_LIMIT) {
                droppedQos0++;  // a slow reader loses QoS 0, never memory without bound
                return;
            }
            writePublish(message.toPublish(0, false));
        } else if (session.canSendNow(terms.clientReceiveMaximum())) {
            writePublish(session.startFlight(message));
        } else if (!session.enqueue(message, false, congested)) {
            getContext().getLog().debug("[{}] queue full: message on [{}] dropped", clientId, message.topic());
        } else if (!congested && !gaveUpCongestion && session.queuedCount() >= congestionHighWater()) {
            // The client acknowledges slower than messages arrive: ask the shard to slow the publishers
            // down before the queue is full and QoS 1/2 messages would be dropped (DESIGN.md).
            congested = true;
            shard.tell(new Shard.Congestion(getContext().getSelf(), true));
            timers.startSingleTimer(CongestionTimeout.INSTANCE, CONGESTION_TIMEOUT);
        }
    }

    private int congestionHighWater() {
        return Math.max(1, settings.maxQueuedMessages() / 2);
    }

    /** Sends what the in-flight window allows, and tells the shard when a congestion is over. */
    private void drainQueue() {
        session.drain(terms.clientReceiveMaximum(), this::writePublish);
        if (session.queuedCount() <= congestionHighWater() / 2) {
            gaveUpCongestion = false;
            if (congested) relieveCongestion();
        }
    }

    private void relieveCongestion() {
        congested = false;
        timers.cancel(CongestionTimeout.INSTANCE);
        shard.tell(new Shard.Congestion(getContext().getSelf(), false));
    }

    /**
     * A client that stays congested this long is not slow but stuck: publishers must not wait for it.
     * It falls back to the queue limit (drops counted) until it has drained.
     */
    private Behavior<Command> onCongestionTimeout() {
        if (congested) {
            getContext().getLog().debug("[{}] still congested after [{}]: no longer slowing publishers", clientId, CONGESTION_TIMEOUT);
            gaveUpCongestion = true;
            relieveCongestion();
        }
        return this;
    }

    /** Whether the client announced a Maximum Packet Size below the protocol's own. */
    private boolean clientLimitsPacketSize() {
        return terms.clientMaximumPacketSize() < BrokerSettings.PROTOCOL_MAX_PACKET_SIZE;
    }

    /**
     * [MQTT-3.1.2-25] a PUBLISH larger than the client's Maximum Packet Size is not sent; it is discarded
     * as if it had been delivered.
     */
    private boolean fitsClientMaximum(Publish publish) {
        return PacketEncoder.encodedSize(publish, version) <= terms.clientMaximumPacketSize();
    }

    private void writePublish(Packet packet) {
        if (packet instanceof Publish publish) {
            if (clientLimitsPacketSize() && !fitsClientMaximum(publish)) {
                // Discarded as if delivered: a QoS 1/2 one frees its in-flight slot at once, whether it
                // came straight from the shard or out of the queue (drain then sends the next one).
                if (publish.qos() != QoS.AT_MOST_ONCE) session.abandon(publish.packetId());
                return;
            }
            packet = outboundAliases.apply(publish);
        }
        write(packet);
    }

    private Behavior<Command> onTakenOver() {
        if (phase == Phase.CLOSED) return this;  // already ending; the session is on its way back
        if (phase == Phase.ATTACHING) {
            // Another connection for the same client id arrived before the shard attached this one:
            // the shard will never attach it, so there is no session to release.
            phase = Phase.CLOSED;
            return closeNow();
        }
        getContext().getLog().debug("[{}] session taken over", clientId);
        return disconnect(ReasonCode.SESSION_TAKEN_OVER, "another connection took over the session", true);
    }

    // ---- timers

    private Duration keepAliveLimit() {
        return Duration.ofMillis(terms.keepAliveSeconds() * 1500L);  // [MQTT-3.1.2-24] one and a half times
    }

    private void scheduleKeepAliveCheck(Duration delay) {
        timers.startSingleTimer(KeepAliveCheck.INSTANCE, delay);
    }

    private Behavior<Command> onKeepAliveCheck() {
        if (phase != Phase.CONNECTED) return this;
        long silentNanos = System.nanoTime() - lastPacketNanos;
        long limitNanos = keepAliveLimit().toNanos();
        if (silentNanos >= limitNanos) {
            return disconnect(ReasonCode.KEEP_ALIVE_TIMEOUT, "no packet within 1.5 times the keep alive", true);
        }
        scheduleKeepAliveCheck(Duration.ofNanos(limitNanos - silentNanos));
        return this;
    }

    private Behavior<Command> onConnectTimeout() {
        if (phase != Phase.AWAITING_CONNECT) return this;
        getContext().getLog().debug("no CONNECT from [{}] within [{}]", remote, settings.connectTimeout());
        return closeNow();
    }

    // ---- ending

    /** Sends DISCONNECT with a reason (MQTT 5 only; 3.1.1 servers just close) and ends the connection. */
    private Behavior<Command> disconnect(ReasonCode reason, String why, boolean publishWill) {
        getContext().getLog().debug("[{}] disconnecting: [{}] {}", clientId, reason, why);
        if (phase == Phase.CONNECTED && version.hasProperties()) {
            var properties = terms.problemInformation()
                    ? Properties.builder().set(PropertyId.REASON_STRING, why).build()
                    : Properties.NONE;
            write(new Disconnect(reason, properties));
        }
        return end(publishWill);
    }

    /** The network connection ends: the will if due, the session back to the shard, the socket closed. */
    private Behavior<Command> end(boolean publishWill) {
        var previous = phase;
        phase = Phase.CLOSED;
        uncork();
        transport.close();
        if (previous == Phase.ATTACHING) {
            publishWillOnRelease = publishWill;  // the session is on its way; release it when it comes
            return this;
        }
        if (previous == Phase.CONNECTED) return release(publishWill);
        return Behaviors.stopped();
    }

    private Behavior<Command> release(boolean publishWill) {
        if (congested) relieveCongestion();
        Optional<Shard.DelayedWill> delayedWill = Optional.empty();
        if (publishWill && will.isPresent()) {
            var w = will.get();
            // Will Delay Interval is a Will Property only (Table 2-4): the PUBLISH must not carry it.
            var properties = w.properties().toBuilder().remove(PropertyId.WILL_DELAY_INTERVAL).build();
            var message = new Message(w.topic(), w.payload(), w.qos(), w.retain(), properties);
            long delay = version.hasProperties() ? w.properties().willDelayInterval() : 0;
            if (delay == 0) {
                route(message);
            } else {
                // 3.1.3.2.2: published after the Will Delay Interval or when the session ends, unless
                // the client reconnects first; the shard keeps it, it outlives this connection.
                delayedWill = Optional.of(new Shard.DelayedWill(message, delay));
            }
        }
        shard.tell(new Shard.Release(clientId, getContext().getSelf(), session, sessionExpiryInterval, delayedWill));
        session = null;
        publishWillOnRelease = false;
        released = true;  // stay until the shard confirms, bouncing what it still sends us
        if (droppedQos0 > 0) getContext().getLog().debug("[{}] dropped [{}] QoS 0 messages for a slow reader", clientId, droppedQos0);
        return this;
    }

    private Behavior<Command> closeNow() {
        phase = Phase.CLOSED;
        if (transport != null) {
            uncork();
            transport.close();
        }
        return Behaviors.stopped();
    }

    private Behavior<Command> onPostStop() {
        if (transport != null) transport.close();
        return this;
    }

    private void write(Packet packet) {
        var buffer = PacketEncoder.encode(packet, version);
        var bytes = ByteString.fromArrayUnsafe(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        if (corked) {
            corkedBytes = corkedBytes.concat(bytes);
        } else {
            transport.write(bytes);
        }
    }

    /** Collects writes until {@link #uncork()}, to hand the transport one buffer for many packets. */
    private void cork() {
        corked = true;
    }

    private void uncork() {
        corked = false;
        if (!corkedBytes.isEmpty()) {
            var bytes = corkedBytes;
            corkedBytes = ByteString.emptyByteString();
            transport.write(bytes);
        }
    }
}
