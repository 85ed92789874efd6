package io.pekquitto.shards.connection;

import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Will;
import java.util.Optional;

/**
 * A connection past its CONNACK, without its actor: what the handshake hands to the {@link Connection}
 * actor, and what a parked connection keeps in place of one (docs/connections.md, Parking). It is
 * the MQTT state a quiet connection still has: the session, what was negotiated (client id, limits,
 * Keep Alive), both directions' topic aliases, the will and the socket, and no more: not the
 * CONNECT's terms nor the CONNACK's properties, which each of 10,000 idle connections would pay for.
 * It has no packet reader (a connection parks with no partial packet), no timers and no mailbox;
 * while it is parked, the shard enforces its Keep Alive ({@link ConnectionDeadlines}).
 */
public final class Established {
    final Transport transport;
    final PacketWriter writer;
    /** With a store, acknowledgements and deliveries go out through it, some after the shard's writes; else null. */
    final OutboundGate gate;
    final ProtocolVersion version;
    /** The CONNECT had the bridge bit ({@link io.pekquitto.protocol.Connect#bridge()}): for its SUBSCRIBEs, parked too. */
    final boolean bridge;
    /** The client as the ACLs see it: its client id, the user it authenticated as, its address. */
    final ClientIdentity identity;
    final Optional<Will> will;
    /** As negotiated, or as a DISCONNECT changed it. */
    long sessionExpiryInterval;
    final KeepAlive keepAlive;
    /** The client's ACL decisions, resolved at CONNECT ({@link io.pekquitto.auth.Authorizer#forClient}). */
    final ClientAuthorizer acl;
    /** Whether the client asked for Reason Strings (Request Problem Information, 3.1.2.11.7). */
    final boolean problemInformation;
    final DeliveryWindow window;
    /** The rules of the client's PUBLISHes, made at its first: an idle client sends none, and they cost 40 bytes. */
    private InboundPublish inbound;

    Established(Transport transport, PacketWriter writer, OutboundGate gate, ProtocolVersion version, boolean bridge,
                ClientIdentity identity, Optional<Will> will, long sessionExpiryInterval,
                KeepAlive keepAlive, ClientAuthorizer acl, boolean problemInformation, DeliveryWindow window) {
        this.transport = transport;
        this.writer = writer;
        this.gate = gate;
        this.version = version;
        this.bridge = bridge;
        this.identity = identity;
        this.will = will;
        this.sessionExpiryInterval = sessionExpiryInterval;
        this.keepAlive = keepAlive;
        this.acl = acl;
        this.problemInformation = problemInformation;
        this.window = window;
    }

    /** The rules of the client's PUBLISHes (and of the Reason Strings it gets), made at the first use. */
    InboundPublish inbound(ShardEnvironment environment) {
        if (inbound == null) inbound = new InboundPublish(environment.settings(), version, problemInformation, acl, environment.memory());
        return inbound;
    }

    /** Nothing in flight either way, nothing queued, held, half read or unwritten: the connection may park. */
    boolean isQuiet(PacketSource packets) {
        return window.isQuiet() && writer.backlog() == 0 && !packets.hasPartialPacket() && (gate == null || gate.isEmpty());
    }

    public String clientId() {
        return identity.clientId();
    }

    /** When the client's Keep Alive runs out on the broker's nanosecond clock, or {@link Long#MAX_VALUE} without one. */
    public long keepAliveDeadline() {
        return keepAlive.deadline();
    }
}
