package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.UnsubAck;
import io.pekquitto.protocol.Unsubscribe;
import io.pekquitto.protocol.Will;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
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
 * One client connection: the MQTT protocol state of a network connection and, while connected, the
 * client's {@link Session}. It lives on its shard's thread, reads packets from its {@link Transport},
 * asks its shard ({@link ShardRequest}) to attach, route and subscribe, and writes what the rules
 * answer. The rules live in plain classes it owns: {@link ConnectNegotiation}, {@link KeepAlive},
 * {@link InboundPublish}, {@link SubscribeChecks}, {@link DeliveryWindow}, {@link PacketWriter}.
 *
 * <p>Phases: awaiting CONNECT, attaching (CONNECT accepted, the shard is fetching the session),
 * connected, closed. A connection closed while attaching stays until the shard answers: with the
 * session, which it hands straight back, or with {@link TakenOver}, and then there is none.
 */
public final class Connection extends AbstractBehavior<Connection.Command> {

    public sealed interface Command {}

    /** From the transport: it is ready; bytes follow. */
    public record TransportReady(Transport transport) implements Command {}

    /** From the transport: the next chunk read from the socket. */
    public record BytesReceived(ByteString bytes) implements Command {}

    /** From the transport: the socket closed or failed. */
    public record TransportClosed(String cause) implements Command {}

    /** From the shard: the session this connection now serves. */
    public record Attached(boolean sessionPresent, Session session) implements Command {}

    /** From the shard: messages for this client, in order, QoS and retain decided; one socket write. */
    public record Deliver(List<Message> messages) implements Command {}

    /** From the shard: SUBSCRIBE applied; retained messages to send after the SUBACK. */
    public record Subscribed(int packetId, List<ReasonCode> reasons, List<Message> retained) implements Command {}

    /** From the shard: UNSUBSCRIBE applied. */
    public record Unsubscribed(int packetId, List<ReasonCode> reasons) implements Command {}

    /** From the shard: our Release is applied; deliveries sent before it have reached us. */
    public enum ReleaseConfirmed implements Command { INSTANCE }

    /** From the shard: another connection claimed this client id ([MQTT-3.1.4-3]). */
    public enum TakenOver implements Command { INSTANCE }

    private enum KeepAliveCheck implements Command { INSTANCE }

    private enum ConnectTimeout implements Command { INSTANCE }

    private enum CongestionTimeout implements Command { INSTANCE }

    private enum Phase { AWAITING_CONNECT, ATTACHING, CONNECTED, CLOSED }

    /** How long a congested client may hold publishers back before it counts as stuck. */
    static final Duration CONGESTION_TIMEOUT = Duration.ofSeconds(2);

    private final BrokerSettings settings;
    private final ActorRef<ShardRequest> shard;
    private final InetSocketAddress remote;
    private final TimerScheduler<Command> timers;
    private final LongSupplier clock;

    private Transport transport;
    private PacketSource packets;
    private PacketWriter writer;
    private Phase phase = Phase.AWAITING_CONNECT;
    private ProtocolVersion version = ProtocolVersion.MQTT_3_1_1;
    private ConnectNegotiation.Terms terms;
    private String clientId = "";
    private Optional<Will> will = Optional.empty();
    private long sessionExpiryInterval;
    private KeepAlive keepAlive;
    private InboundPublish inbound;
    private DeliveryWindow window;
    /** Closed while attaching: the will to leave once the session arrives and goes straight back. */
    private boolean willOnRelease;
    /** The session went back to the shard; waiting for {@link ReleaseConfirmed}, bouncing deliveries. */
    private boolean released;

    /** @param clock the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own) */
    public static Behavior<Command> create(BrokerSettings settings, ActorRef<ShardRequest> shard, InetSocketAddress remote,
                                           LongSupplier clock) {
        return Behaviors.setup(context -> Behaviors.withTimers(
                timers -> new Connection(context, timers, settings, shard, remote, clock)));
    }

    private Connection(ActorContext<Command> context, TimerScheduler<Command> timers, BrokerSettings settings,
                       ActorRef<ShardRequest> shard, InetSocketAddress remote, LongSupplier clock) {
        super(context);
        this.settings = settings;
        this.shard = shard;
        this.remote = remote;
        this.timers = timers;
        this.clock = clock;
        timers.startSingleTimer(ConnectTimeout.INSTANCE, settings.connectTimeout());
    }

    @Override
    public Receive<Command> createReceive() {
        // One case: the receive is built per actor, and thirteen cases cost 0.5 KiB per connection.
        return newReceiveBuilder().onMessage(Command.class, this::onCommand)
                .onSignal(PostStop.class, signal -> onPostStop()).build();
    }

    private Behavior<Command> onCommand(Command command) {
        if (command instanceof BytesReceived received) return onBytesReceived(received);
        if (command instanceof Deliver deliver) return onDeliver(deliver);
        if (command instanceof TransportReady ready) return onTransportReady(ready);
        if (command instanceof TransportClosed closed) return onTransportClosed(closed);
        if (command instanceof Attached attached) return onAttached(attached);
        if (command instanceof Subscribed subscribed) return onSubscribed(subscribed);
        if (command instanceof Unsubscribed unsubscribed) return onUnsubscribed(unsubscribed);
        if (command == TakenOver.INSTANCE) return onTakenOver();
        if (command == ReleaseConfirmed.INSTANCE) return onReleaseConfirmed();
        if (command == KeepAliveCheck.INSTANCE) return onKeepAliveCheck();
        if (command == ConnectTimeout.INSTANCE) return onConnectTimeout();
        return command == CongestionTimeout.INSTANCE ? onCongestionTimeout() : Behaviors.unhandled();
    }

    // ---- transport

    private Behavior<Command> onTransportReady(TransportReady ready) {
        transport = ready.transport();
        packets = new PacketSource(PacketReader.forServer(settings.maxPacketSize()), transport);
        writer = new PacketWriter(transport);
        transport.readMore();
        return this;
    }

    private Behavior<Command> onBytesReceived(BytesReceived received) {
        if (phase == Phase.CLOSED) return this;
        packets.feed(received.bytes());
        if (keepAlive != null) keepAlive.packetReceived(clock.getAsLong());
        writer.cork();  // the acknowledgements of a whole chunk go out in one write
        var next = readPackets();
        writer.uncork();
        return next;
    }

    /** Handles buffered packets until more bytes are needed, the connection closes, or CONNECT awaits the shard. */
    private Behavior<Command> readPackets() {
        while (phase == Phase.AWAITING_CONNECT || phase == Phase.CONNECTED) {
            Packet packet;
            try {
                packet = packets.poll();
            } catch (MalformedPacketException e) {
                return onMalformed(e);
            }
            if (packet == null) {
                if (packets.readMoreUnlessRouted()) shard.tell(new ShardRequest.ResumeReading(transport));
                return this;
            }
            // The first packet is CONNECT: the reader refuses any other at its first byte [MQTT-3.1.0-1].
            var next = phase == Phase.AWAITING_CONNECT ? onConnect((Connect) packet) : handle(packet);
            if (next != this) return next;
        }
        return this;
    }

    private Behavior<Command> onMalformed(MalformedPacketException e) {
        getContext().getLog().debug("[{}] {}: {}", clientId, e.reason(), e.getMessage());
        if (phase != Phase.AWAITING_CONNECT) return disconnect(e.reason(), e.getMessage());
        version = packets.version();
        writer.version(version);
        ConnectNegotiation.refusalOfMalformed(e.reason(), version).ifPresent(writer);
        return closeNow();
    }

    private Behavior<Command> onTransportClosed(TransportClosed closed) {
        if (phase == Phase.CLOSED) return this;  // we closed it
        getContext().getLog().debug("[{}] connection lost: {}", clientId, closed.cause());
        return end(true);  // no DISCONNECT: abnormal, the will is published ([MQTT-3.1.2-8])
    }

    // ---- packets from the client

    private Behavior<Command> handle(Packet packet) {
        return switch (packet.type()) {
            case CONNECT -> disconnect(ReasonCode.PROTOCOL_ERROR, "second CONNECT");  // [MQTT-3.1.0-2]
            case PUBLISH -> onPublish((Publish) packet);
            case PUBACK -> congestion(window.pubAck(((PubAck) packet).packetId(), clock.getAsLong()));
            case PUBREC -> congestion(window.pubRec((PubRec) packet, clock.getAsLong()));
            case PUBREL -> {
                writer.accept(inbound.release((PubRel) packet, window.session()));
                yield this;
            }
            case PUBCOMP -> congestion(window.pubComp(((PubComp) packet).packetId(), clock.getAsLong()));
            case SUBSCRIBE -> onSubscribe((Subscribe) packet);
            case UNSUBSCRIBE -> {
                var unsubscribe = (Unsubscribe) packet;
                shard.tell(new ShardRequest.Unsubscribe(clientId, unsubscribe.packetId(), unsubscribe.topicFilters(), getContext().getSelf()));
                yield this;
            }
            case PINGREQ -> {
                writer.accept(PingResp.INSTANCE);  // [MQTT-3.12.4-1]
                yield this;
            }
            case DISCONNECT -> onDisconnect((Disconnect) packet);
            case AUTH -> disconnect(ReasonCode.PROTOCOL_ERROR, "AUTH without an authentication method");
            case CONNACK, SUBACK, UNSUBACK, PINGRESP -> disconnect(ReasonCode.PROTOCOL_ERROR, packet.type() + " is sent by servers only");
        };
    }

    private Behavior<Command> onConnect(Connect connect) {
        version = connect.version();
        writer.version(version);
        var outcome = ConnectNegotiation.negotiate(connect, settings);
        if (outcome.terms().isEmpty()) {
            getContext().getLog().debug("[{}] CONNECT refused: [{}] {}", connect.clientId(), outcome.refusal(), outcome.why());
            writer.accept(ConnectNegotiation.refusal(outcome.refusal()));
            return closeNow();
        }
        terms = outcome.terms().get();
        clientId = terms.clientId();
        will = connect.will();
        sessionExpiryInterval = terms.sessionExpiryInterval();
        inbound = new InboundPublish(settings, version, terms.problemInformation());
        timers.cancel(ConnectTimeout.INSTANCE);
        phase = Phase.ATTACHING;
        shard.tell(new ShardRequest.Attach(clientId, connect.cleanStart(), sessionExpiryInterval, getContext().getSelf()));
        return this;
    }

    private Behavior<Command> onAttached(Attached attached) {
        window = new DeliveryWindow(attached.session(), terms, version, settings, writer);
        if (phase == Phase.CLOSED) return release(willOnRelease);  // closed while attaching: straight back
        phase = Phase.CONNECTED;
        long now = clock.getAsLong();
        keepAlive = new KeepAlive(terms.keepAliveSeconds(), now);
        if (keepAlive.isEnabled()) timers.startSingleTimer(KeepAliveCheck.INSTANCE, keepAlive.limit());
        writer.cork();
        writer.accept(new ConnAck(attached.sessionPresent(), ReasonCode.SUCCESS, terms.connAckProperties()));
        getContext().getLog().debug("[{}] connected from [{}] ({}, session present {})",
                clientId, remote, version, attached.sessionPresent());
        congestion(attached.sessionPresent() ? window.resume(now) : window.drain(now));  // [MQTT-4.4.0-1]
        var next = readPackets();
        writer.uncork();
        return next;
    }

    private Behavior<Command> onPublish(Publish publish) {
        var outcome = inbound.receive(publish, window.session(), clock.getAsLong());
        if (outcome instanceof InboundPublish.Accepted accepted) {
            packets.routed();
            shard.tell(new ShardRequest.Route(clientId, accepted.message()));
            if (accepted.ack() != null) writer.accept(accepted.ack());
        } else if (outcome instanceof InboundPublish.AcknowledgedOnly acknowledged) {
            writer.accept(acknowledged.ack());
        } else if (outcome instanceof InboundPublish.Violation violation) {
            return disconnect(violation.reason(), violation.why());
        }
        return this;
    }

    private Behavior<Command> onSubscribe(Subscribe subscribe) {
        var outcome = SubscribeChecks.check(subscribe, version, settings.maxQos());
        if (outcome instanceof SubscribeChecks.Violation violation) return disconnect(violation.reason(), violation.why());
        var checked = (SubscribeChecks.Checked) outcome;
        shard.tell(new ShardRequest.Subscribe(clientId, subscribe.packetId(), checked.reasons(), checked.requests(),
                getContext().getSelf()));
        return this;
    }

    private Behavior<Command> onSubscribed(Subscribed subscribed) {
        if (phase != Phase.CONNECTED) return this;
        writer.cork();
        writer.accept(new SubAck(subscribed.packetId(), subscribed.reasons(), Properties.NONE));
        return deliverAll(subscribed.retained());
    }

    private Behavior<Command> onUnsubscribed(Unsubscribed unsubscribed) {
        if (phase == Phase.CONNECTED) writer.accept(new UnsubAck(unsubscribed.packetId(), unsubscribed.reasons(), Properties.NONE));
        return this;
    }

    private Behavior<Command> onDisconnect(Disconnect disconnect) {
        var expiry = ConnectNegotiation.expiryOnDisconnect(disconnect, sessionExpiryInterval, version, settings);
        if (expiry.isEmpty()) {
            return disconnect(ReasonCode.PROTOCOL_ERROR, "Session Expiry Interval set on DISCONNECT after 0 on CONNECT");
        }
        sessionExpiryInterval = expiry.getAsLong();
        getContext().getLog().debug("[{}] disconnected: [{}]", clientId, disconnect.reason());
        // [MQTT-3.14.4-3] a normal DISCONNECT discards the will; 0x04 asks for it to be published.
        return end(disconnect.reason() == ReasonCode.DISCONNECT_WITH_WILL_MESSAGE);
    }

    // ---- deliveries from the shard

    private Behavior<Command> onDeliver(Deliver deliver) {
        if (phase == Phase.CONNECTED) {
            writer.cork();
            return deliverAll(deliver.messages());
        }
        if (released) {
            // Sent by the shard before it saw our Release: back to the shard, in order, not lost.
            for (var message : deliver.messages()) shard.tell(new ShardRequest.Bounce(getContext().getSelf(), message));
        }
        return this;
    }

    /** Delivers the messages through the window, in one socket write (the writer is corked). */
    private Behavior<Command> deliverAll(List<Message> messages) {
        long now = clock.getAsLong();
        for (var message : messages) congestion(window.deliver(message, now, writer.backlog()));
        writer.uncork();
        return this;
    }

    /** Tells the shard when this client starts or stops holding publishers back. */
    private Behavior<Command> congestion(Congestion change) {
        if (change == Congestion.CONGESTED) {
            shard.tell(new ShardRequest.Congested(getContext().getSelf()));
            timers.startSingleTimer(CongestionTimeout.INSTANCE, CONGESTION_TIMEOUT);
        } else if (change == Congestion.RELIEVED) {
            timers.cancel(CongestionTimeout.INSTANCE);
            shard.tell(new ShardRequest.Relieved(getContext().getSelf()));
        }
        return this;
    }

    private Behavior<Command> onCongestionTimeout() {
        if (window != null) {
            getContext().getLog().debug("[{}] still congested after [{}]: publishers no longer wait", clientId, CONGESTION_TIMEOUT);
            congestion(window.congestionTimedOut());
        }
        return this;
    }

    /** The shard has applied our Release: everything it sent us before has been bounced back. */
    private Behavior<Command> onReleaseConfirmed() {
        shard.tell(new ShardRequest.Drained(getContext().getSelf()));
        return Behaviors.stopped();
    }

    /** [MQTT-3.1.4-3] another connection claimed the client id; before it got the session, there is none to give back. */
    private Behavior<Command> onTakenOver() {
        if (phase == Phase.CONNECTED) return disconnect(ReasonCode.SESSION_TAKEN_OVER, "another connection took over the session");
        if (phase == Phase.ATTACHING) return closeNow();
        return window == null && !released ? Behaviors.stopped() : this;  // closed while attaching: nothing comes
    }

    // ---- timers

    private Behavior<Command> onKeepAliveCheck() {
        if (phase != Phase.CONNECTED) return this;
        var left = keepAlive.untilExpiry(clock.getAsLong());
        if (left.isNegative() || left.isZero()) {
            return disconnect(ReasonCode.KEEP_ALIVE_TIMEOUT, "no packet within 1.5 times the keep alive");
        }
        timers.startSingleTimer(KeepAliveCheck.INSTANCE, left);
        return this;
    }

    private Behavior<Command> onConnectTimeout() {
        if (phase != Phase.AWAITING_CONNECT) return this;
        getContext().getLog().debug("no CONNECT from [{}] within [{}]", remote, settings.connectTimeout());
        return closeNow();
    }

    // ---- ending

    /**
     * The server ends the connection: DISCONNECT with the reason (MQTT 5 only; 3.1.1 servers just
     * close), and the will is published, as for any close not asked for by the client.
     */
    private Behavior<Command> disconnect(ReasonCode reason, String why) {
        getContext().getLog().debug("[{}] disconnecting: [{}] {}", clientId, reason, why);
        if (phase == Phase.CONNECTED && version.hasProperties()) {
            writer.accept(new Disconnect(reason, inbound.problem(why)));
        }
        return end(true);
    }

    /** The network connection ends: the will if due, the session back to the shard, the socket closed. */
    private Behavior<Command> end(boolean publishWill) {
        var previous = phase;
        phase = Phase.CLOSED;
        writer.close();
        if (previous == Phase.ATTACHING) {
            willOnRelease = publishWill;  // the session is on its way; it goes straight back
            return this;
        }
        if (previous == Phase.CONNECTED) return release(publishWill);
        return Behaviors.stopped();
    }

    private Behavior<Command> release(boolean publishWill) {
        congestion(window.close());
        var lastWill = publishWill ? LastWill.of(will, version, clock.getAsLong()) : Optional.<ShardRequest.DelayedWill>empty();
        lastWill.filter(w -> w.delaySeconds() == 0).ifPresent(w -> shard.tell(new ShardRequest.Route(clientId, w.message())));
        // A delayed will goes with the session: the shard publishes it after the delay or when the
        // session ends, unless the client connects again first (3.1.3.2.2).
        shard.tell(new ShardRequest.Release(clientId, getContext().getSelf(), window.session(), sessionExpiryInterval,
                lastWill.filter(w -> w.delaySeconds() > 0)));
        released = true;  // stay until the shard confirms, bouncing what it still sends us
        return this;
    }

    private Behavior<Command> closeNow() {
        phase = Phase.CLOSED;
        if (writer != null) writer.close();
        return Behaviors.stopped();
    }

    private Behavior<Command> onPostStop() {
        if (transport != null) transport.close();
        return this;
    }
}
