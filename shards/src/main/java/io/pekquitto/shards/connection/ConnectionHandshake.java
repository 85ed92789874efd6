package io.pekquitto.shards.connection;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.Credentials;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Will;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection from its whole CONNECT ({@link PreConnect} read it, with no actor) to its CONNACK: the
 * CONNECT's negotiation ({@link ConnectNegotiation}), its authentication and the ACL check of its will,
 * and the wait for the session while the shard claims it. Once the shard answers {@link Connection.Attached},
 * the same actor goes on as a {@link Connection}. A connection closed while attaching stays until the
 * shard answers: with the session, which then goes straight back, or with
 * {@link Connection.TakenOver}, and then there is none.
 */
final class ConnectionHandshake extends AbstractBehavior<Connection.Command> {

    /** {@code SHUT_DOWN_WHILE_ATTACHING}: closed because the broker shuts down, no will for a session that outlives it. */
    private enum Phase { CONNECTING, ATTACHING, CLOSED_WHILE_ATTACHING, SHUT_DOWN_WHILE_ATTACHING }

    /**
     * A logger of its own, not the actor's ({@code getLog()}): that one is made for each actor at its first line,
     * its name the actor's path, and sets the MDC around every message after; at a few thousand connects a
     * second it was a twentieth of the shard's time.
     */
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandshake.class);

    private final ShardEnvironment environment;
    private final BrokerSettings settings;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    /** The listener that accepted it: which versions a CONNECT may ask for. */
    private final Listener listener;
    /** For the connect-to-CONNACK time. */
    private final long acceptedAt;
    private final Transport transport;
    private final PacketSource packets;
    private final PacketWriter writer;
    private final Connect connect;
    private Phase phase = Phase.CONNECTING;
    private ProtocolVersion version;
    private ConnectNegotiation.Terms terms;
    private ClientIdentity identity;
    private boolean cleanStart;
    /** The client's ACL decisions, resolved once: for its will now, for its publishes and subscriptions later. */
    private ClientAuthorizer acl;
    private Optional<Will> will = Optional.empty();

    ConnectionHandshake(ActorContext<Connection.Command> context, ShardEnvironment environment, ActorRef<ShardRequest> shard,
                        ConnectionRef self, PreConnect read) {
        super(context);
        this.environment = environment;
        this.settings = environment.settings();
        this.shard = shard;
        this.self = self;
        this.listener = read.listener;
        this.acceptedAt = read.acceptedAt;
        this.transport = read.transport;
        this.packets = read.packets;
        this.writer = read.writer;
        this.connect = read.connect;
    }

    @Override
    public Receive<Connection.Command> createReceive() {
        return newReceiveBuilder().onMessage(Connection.Command.class, this::onCommand)
                .onSignal(PostStop.class, signal -> onPostStop()).build();
    }

    private Behavior<Connection.Command> onCommand(Connection.Command command) {
        if (command instanceof Connection.Attached attached) return onAttached(attached);
        if (command instanceof Connection.Refused refused) return onRefused(refused);
        if (command instanceof Connection.TransportClosed closed) return onTransportClosed(closed);
        if (command == Connection.TakenOver.INSTANCE) return closeNow();
        if (command == Connection.ServerShuttingDown.INSTANCE) return onServerShuttingDown();
        return command instanceof Connection.BytesReceived ? this : Behaviors.unhandled();  // read before the CONNECT was whole
    }

    /** The CONNECT: refused, or the shard asked for the client's session. */
    Behavior<Connection.Command> onConnect() {
        version = connect.version();
        writer.version(version);
        var outcome = ConnectNegotiation.negotiate(connect, settings, listener);
        if (outcome.terms().isEmpty()) return refuse(connect.clientId(), outcome.refusal(), outcome.why());
        terms = outcome.terms().get();
        // The PROXY header's address if the listener reads one: it was read before the CONNECT's first byte.
        var remote = transport.remoteAddress();
        var authentication = environment.security().authenticator().authenticate(new Credentials(terms.clientId(),
                connect.username(), connect.password().map(Binary::toByteArray), remote, transport.peerCommonName()));
        if (authentication instanceof Authentication.Refused refused) {
            // At INFO, as Mosquitto does: a failed login is what an operator looks for (never the password).
            LOG.info("[{}] CONNECT from {} refused: {}", terms.clientId(), remote, refused.why());
            return refuse(terms.clientId(), refused.refusal() == Authentication.Refusal.BAD_USERNAME_OR_PASSWORD
                    ? ReasonCode.BAD_USER_NAME_OR_PASSWORD : ReasonCode.NOT_AUTHORIZED, refused.why());
        }
        identity = new ClientIdentity(terms.clientId(), ((Authentication.Allowed) authentication).username(), remote);
        will = connect.will();
        // Wills are publishes: the ACLs judge them at CONNECT, when the client can still be told.
        acl = environment.security().authorizer().forClient(identity);
        if (will.isPresent() && !acl.canPublish(will.get().topic())) {
            return refuse(terms.clientId(), ReasonCode.NOT_AUTHORIZED, "the ACLs do not allow the will's topic");
        }
        if (environment.storeFailing() && environment.outlivesBroker(terms.sessionExpiryInterval())) {
            environment.storeHealth().refused();
            return refuse(terms.clientId(), ReasonCode.QUOTA_EXCEEDED, "the store cannot write the persistent session");
        }
        phase = Phase.ATTACHING;
        cleanStart = connect.cleanStart();
        shard.tell(new ShardRequest.Attach(terms.clientId(), cleanStart, terms.sessionExpiryInterval(), self,
                LastWill.of(will, version, environment.clock().getAsLong())));
        return this;
    }

    private Behavior<Connection.Command> refuse(String clientId, ReasonCode reason, String why) {
        LOG.debug("[{}] CONNECT refused: [{}] {}", clientId, reason, why);
        writer.accept(ConnectNegotiation.refusal(reason));
        return closeNow();
    }

    /** The session is here: the connection goes on as a {@link Connection}, or hands it straight back if closed. */
    private Behavior<Connection.Command> onAttached(Connection.Attached attached) {
        // Without a store, only a retained message's PUBACK waits, and only for the other shards' copies;
        // a single shard without a store needs no gate, which idle connections would each pay for.
        var gate = environment.durableAcks() || settings.shards() > 1 ? new OutboundGate(writer, shard, self) : null;
        var state = new Established(transport, writer, gate, version, connect.bridge(), identity, will,
                terms.sessionExpiryInterval(), new KeepAlive(terms.keepAliveSeconds(), environment.clock().getAsLong()),
                acl, terms.problemInformation(),
                new DeliveryWindow(attached.session(), terms, version, settings, gate != null ? gate : writer, environment.stats(),
                        environment.memory(), writer));
        var connection = new Connection(getContext(), environment, shard, self, state, packets);
        if (phase == Phase.CLOSED_WHILE_ATTACHING) return connection.end(true);
        if (phase == Phase.SHUT_DOWN_WHILE_ATTACHING) return connection.end(!environment.outlivesBroker(terms.sessionExpiryInterval()));
        ConnectionLog.connected(settings.connectionMessages(), identity, version, connect.bridge(), cleanStart,
                terms.keepAliveSeconds());
        environment.stats().connected(environment.clock().getAsLong() - acceptedAt);
        LOG.debug("[{}] connected from [{}] ({}, session present {})", terms.clientId(), identity.address(), version,
                attached.sessionPresent());
        return connection.start(attached.sessionPresent(), terms.connAckProperties());
    }

    /** The shard has no session for this client (the memory budget has no room for a new persistent one). */
    private Behavior<Connection.Command> onRefused(Connection.Refused refused) {
        if (phase != Phase.ATTACHING) return Behaviors.stopped();  // closed meanwhile: nobody to tell
        return refuse(terms.clientId(), refused.reason(), refused.why());
    }

    private Behavior<Connection.Command> onTransportClosed(Connection.TransportClosed closed) {
        LOG.debug("[{}] connection lost before CONNACK: {}", transport.remoteAddress(), closed.cause());
        if (phase != Phase.ATTACHING) return this;
        phase = Phase.CLOSED_WHILE_ATTACHING;  // the session is on its way; it goes straight back, will published
        writer.close();
        return this;
    }

    /** No CONNACK has gone out: the connection closes, and a session on its way goes straight back. */
    private Behavior<Connection.Command> onServerShuttingDown() {
        if (phase == Phase.CONNECTING) return closeNow();
        if (phase == Phase.ATTACHING) {
            phase = Phase.SHUT_DOWN_WHILE_ATTACHING;
            writer.close();
        }
        return this;
    }

    private Behavior<Connection.Command> closeNow() {
        writer.close();
        return Behaviors.stopped();
    }

    private Behavior<Connection.Command> onPostStop() {
        transport.close();
        packets.release();
        return this;
    }
}
