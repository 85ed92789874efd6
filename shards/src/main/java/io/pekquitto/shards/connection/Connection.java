package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
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
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.util.ByteString;

/**
 * One client connection past its CONNACK: the MQTT protocol state of a network connection and the
 * client's {@link Session}. It lives on its shard's thread, reads packets from its {@link Transport},
 * asks its shard ({@link ShardRequest}, through {@link ClientRequests}) to route and subscribe, and writes
 * what the rules answer. The rules live in plain classes it owns: {@link KeepAlive}, {@link InboundPublish},
 * {@link SubscribeChecks}, {@link DeliveryWindow}, {@link OutboundGate}, {@link PacketWriter}, {@link SlowClient}.
 * {@link PreConnect} (no actor), then {@link ConnectionHandshake} serve it until the CONNACK; it starts from their {@link Established}.
 *
 * <p>A connection that has been quiet for {@code parking.idle-grace} parks: its actor stops and its
 * {@link ConnectionRef} keeps the {@link Established} state; the next command resumes it in a new actor
 * (docs/connections.md, Parking). When it ends, the session goes back to the shard, and the actor
 * waits for {@link ReleaseConfirmed}, bouncing what the shard still sent it.
 */
public final class Connection extends AbstractBehavior<Connection.Command> {

    public sealed interface Command {}

    /** From the transport: it is ready; bytes follow (to the {@link PreConnect} first). */
    public record TransportReady(Transport transport) implements Command {}

    /** From the transport: the next chunk read from the socket. */
    public record BytesReceived(ByteString bytes) implements Command {}

    /** From the transport: the socket closed or failed. */
    public record TransportClosed(String cause) implements Command {}

    /** From the shard: the session this connection now serves. */
    public record Attached(boolean sessionPresent, Session session) implements Command {}

    /** From the shard: no session for this CONNECT (a new persistent session past the memory budget): CONNACK with this reason. */
    public record Refused(ReasonCode reason, String why) implements Command {}

    /** From the shard: messages for this client, in order, QoS and retain decided, then what the queue may send; one socket write. */
    public record Deliver(List<Message> messages) implements Command {}

    /** From the shard: SUBSCRIBE applied; retained messages to send after the SUBACK. */
    public record Subscribed(int packetId, List<ReasonCode> reasons, List<Message> retained) implements Command {}

    /** From the shard: UNSUBSCRIBE applied. */
    public record Unsubscribed(int packetId, List<ReasonCode> reasons) implements Command {}

    /** From the shard: the writes of our next {@code count} acknowledgements are done (with a store). */
    public record AcknowledgementsWritten(int count) implements Command {}

    /** From the shard: the writes our next {@code count} acknowledgements wait for failed: the store fails. */
    public record WritesFailed(int count) implements Command {}

    /** From the shard: our Release is applied; deliveries sent before it have reached us. */
    public enum ReleaseConfirmed implements Command { INSTANCE }

    /** From the shard: another connection claimed this client id ([MQTT-3.1.4-3]). */
    public enum TakenOver implements Command { INSTANCE }

    /** From the shard: the broker is shutting down; a parked connection is resumed to hear it. */
    public enum ServerShuttingDown implements Command { INSTANCE }

    /** Is its deadline over (connect timeout; Keep Alive, idle check or a close's wait)? From the shard's {@link ConnectionDeadlines}. */
    public enum DeadlineCheck implements Command { INSTANCE }

    /** From the transport: it took what was written, as asked ({@link Transport#tellWhenTaken}). */
    public enum WritesTaken implements Command { INSTANCE }

    /** Sent to itself as it starts parking: when it comes, everything told before has been handled. */
    enum ParkNow implements Command { INSTANCE }

    private static final String TAKEN_OVER = "another connection took over the session";  // [MQTT-3.1.4-3]

    private final BrokerSettings settings;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    /** The shard's queue, which holds this connection's one deadline: the Keep Alive's, the idle check's or a close's. */
    private final ConnectionDeadlines deadlines;
    private final LongSupplier clock;
    /** The state a park keeps; the fields below are its parts that every packet needs. */
    private final Established state;
    private final PacketSource packets;
    private final PacketWriter writer;
    private final String clientId;
    private final DeliveryWindow window;
    private final SlowClient slow;
    /** What the shard sends the client: deliveries, SUBACKs and their retained messages. */
    private final Deliveries deliveries;
    /** PUBLISH, PUBREL, SUBSCRIBE and UNSUBSCRIBE: to the shard, acknowledged (with a store, after its write). */
    private final ClientRequests requests;
    private boolean closed;
    /** The session went back to the shard; waiting for {@link ReleaseConfirmed}, bouncing deliveries. */
    private boolean released;
    private final Parking parking;
    private final ShardStats stats;
    /** A persistent session kept in a durable store: it is there again after a restart. */
    private final boolean sessionOutlivesBroker;

    /** The actor of a connection whose CONNECT is whole ({@link PreConnect}): the handshake first ({@link ConnectionHandshake}). */
    public static Behavior<Command> afterConnect(ShardEnvironment environment, ActorRef<ShardRequest> shard, ConnectionRef self) {
        var read = self.preConnect();  // taken now: the ref lets go of it once the actor is spawned
        return Behaviors.setup(context -> new ConnectionHandshake(context, environment, shard, self, read).onConnect());
    }

    /** A parked connection that is told something: it goes on where it parked, and the command follows. */
    public static Behavior<Command> resume(ShardEnvironment environment, ActorRef<ShardRequest> shard, ConnectionRef self,
                                           Established parked) {
        return Behaviors.setup(context -> {
            var reader = PacketReader.forServerAfterConnect(environment.settings().maxPacketSize(), parked.version);
            var connection = new Connection(context, environment, shard, self, parked,
                    new PacketSource(reader, parked.transport, environment.partialPackets()));
            connection.startTimers();
            return connection;
        });
    }

    Connection(ActorContext<Command> context, ShardEnvironment environment,
               ActorRef<ShardRequest> shard, ConnectionRef self, Established state, PacketSource packets) {
        super(context);
        this.settings = environment.settings();
        this.shard = shard;
        this.self = self;
        this.deadlines = environment.deadlines();
        this.clock = environment.clock();
        this.state = state;
        this.packets = packets;
        this.writer = state.writer;
        this.clientId = state.clientId();
        this.window = state.window;
        this.slow = new SlowClient(environment, window, writer, shard, self);
        this.deliveries = new Deliveries(state, slow, clock);
        this.requests = new ClientRequests(environment, state, shard, self, packets);
        this.stats = environment.stats();
        this.sessionOutlivesBroker = environment.outlivesBroker(state.sessionExpiryInterval);
        this.parking = new Parking(settings.parking(), clock, self, context.getSelf(), shard);
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
        if (command instanceof AcknowledgementsWritten written) return onWrites(true, written.count());
        if (command instanceof WritesFailed failed) return onWrites(false, failed.count());
        if (command instanceof TransportClosed closedBy) return onTransportClosed(closedBy);
        if (command instanceof Subscribed subscribed) return onSubscribed(subscribed);
        if (command instanceof Unsubscribed unsubscribed) return onUnsubscribed(unsubscribed);
        if (command == TakenOver.INSTANCE) return closed ? this : disconnect(ReasonCode.SESSION_TAKEN_OVER, TAKEN_OVER);
        if (command == ServerShuttingDown.INSTANCE) return onServerShuttingDown();
        if (command == ReleaseConfirmed.INSTANCE) return onReleaseConfirmed();
        if (command == DeadlineCheck.INSTANCE) return onDeadlineCheck();
        if (command == WritesTaken.INSTANCE) return afterEvent();
        if (command == ParkNow.INSTANCE) return parking.parkNow(state, closed, state.isQuiet(packets) && deliveries.isQuiet()) ? Behaviors.stopped() : nextCheck();
        return Behaviors.unhandled();
    }

    // ---- from the handshake

    /** The CONNACK, then what the session holds for the client ([MQTT-4.4.0-1]), then the packets read meanwhile. */
    Behavior<Command> start(boolean sessionPresent, Properties connAckProperties) {
        startTimers();
        long now = clock.getAsLong();
        writer.cork();
        writer.accept(new ConnAck(sessionPresent, ReasonCode.SUCCESS, connAckProperties));
        congestion(sessionPresent ? window.resume(now) : window.drain(now));
        var next = readPackets();
        writer.uncork();
        afterEvent();
        return next;
    }

    private void startTimers() {
        parking.start();
        nextCheck();
    }

    /**
     * Its one deadline on the shard's queue: the Keep Alive's, the idle check's or a slow client's check,
     * whichever comes first; none while parking.
     */
    private Behavior<Command> nextCheck() {
        long at = Math.min(state.keepAlive.deadline(), Math.min(parking.nextCheck(), slow.nextDeadline()));
        if (!closed && !parking.isParking() && at != Long.MAX_VALUE && at != self.deadline()) deadlines.watch(self, at);
        return this;
    }

    // ---- transport

    private Behavior<Command> onBytesReceived(BytesReceived received) {
        if (closed || requests.isEnding()) return this;
        stats.bytesReceived(received.bytes().size());
        packets.feed(received.bytes());
        state.keepAlive.packetReceived(parking.activity());
        writer.cork();  // the acknowledgements of a whole chunk go out in one write
        var next = readPackets();
        writer.uncork();
        afterEvent();  // once per chunk: its acknowledgements may have freed the window
        return next;
    }

    /** Handles buffered packets until more bytes are needed or the connection closes. */
    private Behavior<Command> readPackets() {
        while (!closed && !requests.isEnding()) {
            Packet packet;
            try {
                packet = packets.poll();
            } catch (MalformedPacketException e) {
                getContext().getLog().debug("[{}] {}: {}", clientId, e.reason(), e.getMessage());
                return disconnect(e.reason(), e.getMessage());
            }
            if (packet == null) {
                if (packets.readMoreUnlessRouted()) shard.tell(new ShardRequest.ResumeReading(state.transport));
                return this;
            }
            stats.packetReceived();
            var next = handle(packet);
            if (next != this) return next;
        }
        return this;
    }

    private Behavior<Command> onTransportClosed(TransportClosed closedBy) {
        if (closed) return this;  // we closed it
        ConnectionLog.disconnected(settings.connectionMessages(), state.identity, "connection lost (" + closedBy.cause() + ")");
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
                requests.pubRel((PubRel) packet, window.session());
                yield this;
            }
            case PUBCOMP -> congestion(window.pubComp(((PubComp) packet).packetId(), clock.getAsLong()));
            case SUBSCRIBE -> {
                var violation = requests.subscribe((Subscribe) packet);
                yield violation == null ? this : disconnect(violation.reason(), violation.why());
            }
            case UNSUBSCRIBE -> {
                requests.unsubscribe((Unsubscribe) packet);
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

    private Behavior<Command> onPublish(Publish publish) {
        stats.publishReceived(publish.payload().length());
        if (requests.endsConnection(publish)) return onWrites(true, 0);  // it ends now if nothing is held
        var violation = requests.publish(publish, window.session(), clock.getAsLong());
        return violation == null ? this : disconnect(violation.reason(), violation.why());
    }

    /** The shard wrote what held packets wait for, or failed to (then they are refused, or the connection ends). */
    private Behavior<Command> onWrites(boolean written, int count) {
        if (closed) return this;
        writer.cork();
        boolean end = written ? requests.written(count) : requests.writesFailed(count);
        writer.uncork();
        afterEvent();
        if (!end) return this;
        return requests.isClosing() ? closeNow() : disconnect(ReasonCode.QUOTA_EXCEEDED, ShardEnvironment.STORE_FAILING);
    }

    private Behavior<Command> onSubscribed(Subscribed subscribed) {
        if (closed) return this;
        deliveries.subscribed(new SubAck(subscribed.packetId(), subscribed.reasons(), Properties.NONE), subscribed.retained());
        return afterEvent();
    }

    private Behavior<Command> onUnsubscribed(Unsubscribed unsubscribed) {
        if (!closed) writer.accept(new UnsubAck(unsubscribed.packetId(), unsubscribed.reasons(), Properties.NONE));
        return this;
    }

    private Behavior<Command> onDisconnect(Disconnect disconnect) {
        var expiry = ConnectNegotiation.expiryOnDisconnect(disconnect, state.sessionExpiryInterval, state.version, settings);
        if (expiry.isEmpty()) {
            return disconnect(ReasonCode.PROTOCOL_ERROR, "Session Expiry Interval set on DISCONNECT after 0 on CONNECT");
        }
        state.sessionExpiryInterval = expiry.getAsLong();
        ConnectionLog.disconnected(settings.connectionMessages(), state.identity, "DISCONNECT " + disconnect.reason());
        // [MQTT-3.14.4-3] a normal DISCONNECT discards the will; 0x04 asks for it to be published.
        return end(disconnect.reason() == ReasonCode.DISCONNECT_WITH_WILL_MESSAGE);
    }

    // ---- deliveries from the shard

    private Behavior<Command> onDeliver(Deliver deliver) {
        if (!closed) {
            parking.activity();
            deliveries.deliver(deliver.messages());
            return afterEvent();
        }
        if (released) {
            // Sent by the shard before it saw our Release: back to the shard, in order, not lost.
            for (var message : deliver.messages()) shard.tell(new ShardRequest.Bounce(self, message));
        }
        return this;
    }

    private Behavior<Command> congestion(Congestion change) {
        slow.congestion(change);
        return this;
    }

    /**
     * After an event: the retained messages the socket has room for, then what the client holds and how
     * soon it can take shared work (once closed, the Release tells the shard).
     */
    private Behavior<Command> afterEvent() {
        if (closed) return this;
        deliveries.sendRetained();
        slow.afterEvent();
        return this;
    }

    /** Quota exceeded, if {@code why} is not null: what the client held is let go, and it is disconnected with 0x97. */
    private Behavior<Command> quotaExceeded(String why) {
        if (why == null) return this;
        slow.letGo(state.sessionExpiryInterval, state.transport);
        return disconnect(ReasonCode.QUOTA_EXCEEDED, why);
    }

    /** The shard has applied our Release: everything it sent us before has been bounced back. */
    private Behavior<Command> onReleaseConfirmed() {
        shard.tell(new ShardRequest.Drained(self));
        return Behaviors.stopped();
    }

    /**
     * DISCONNECT 0x8B to an MQTT 5 client, a plain close for 3.1.1. The will is published unless the
     * session outlives the broker in the store: its client comes back after the restart (3.1.2.5: the
     * will is for a connection that failed, not for a broker that stopped).
     */
    private Behavior<Command> onServerShuttingDown() {
        if (closed) return this;
        ConnectionLog.disconnected(settings.connectionMessages(), state.identity, "by the broker, SERVER_SHUTTING_DOWN");
        return closeAfterAcks(ReasonCode.SERVER_SHUTTING_DOWN, null, !sessionOutlivesBroker);
    }

    // ---- its deadline and parking

    private Behavior<Command> onDeadlineCheck() {
        if (closed) return this;
        if (requests.isClosing()) return closeNow();  // its wait for the acknowledgements is over
        long now = clock.getAsLong();
        var left = state.keepAlive.untilExpiry(now);
        if (state.keepAlive.isEnabled() && (left.isNegative() || left.isZero())) {
            return disconnect(ReasonCode.KEEP_ALIVE_TIMEOUT, "no packet within 1.5 times the keep alive");
        }
        if (parking.nextCheck() != Long.MAX_VALUE && now - parking.nextCheck() >= 0) {
            afterEvent();  // the socket may have taken what waited since the last event: ready, holding nothing, before it parks
            parking.idleCheck(state.isQuiet(packets) && deliveries.isQuiet());  // no retained message waits either
        }
        var quotaExceeded = slow.onDeadline(now);
        return quotaExceeded != null ? quotaExceeded(quotaExceeded) : nextCheck();
    }

    // ---- ending

    /** The server ends the connection: DISCONNECT (MQTT 5; 3.1.1 just closes), and the will, as for any close the client did not ask for. */
    private Behavior<Command> disconnect(ReasonCode reason, String why) {
        ConnectionLog.disconnected(settings.connectionMessages(), state.identity, "by the broker, " + reason + ": " + why);
        return closeAfterAcks(reason, why, true);
    }

    /** What the gate holds of the client's acknowledgements goes out first ({@link ClientRequests#closeAfterAcks}). */
    private Behavior<Command> closeAfterAcks(ReasonCode reason, String why, boolean publishWill) {
        if (requests.closeAfterAcks(reason, why, publishWill)) return closeNow();
        deadlines.watch(self, clock.getAsLong() + ClientRequests.CLOSE_WAIT.toNanos());  // read no more: Keep Alive is moot
        return this;
    }

    private Behavior<Command> closeNow() {  // the broker's DISCONNECT (none for 3.1.1), and the end
        if (requests.disconnect() != null) writer.accept(requests.disconnect());
        return end(requests.publishWill());
    }

    /** The network connection ends: the will if due, the session back to the shard, the socket closed. */
    Behavior<Command> end(boolean publishWill) {
        closed = true;
        self.deadline(Long.MAX_VALUE);  // its entry on the shard's queue is stale
        writer.close();
        return release(publishWill);
    }

    private Behavior<Command> release(boolean publishWill) {
        slow.close();
        requests.release(publishWill, clock.getAsLong());
        released = true;  // stay until the shard confirms, bouncing what it still sends us
        return this;
    }

    private Behavior<Command> onPostStop() {
        if (!parking.isParked()) state.transport.close();  // a parked connection keeps its socket
        packets.release();
        return this;
    }
}
