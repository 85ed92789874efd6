package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.listener.Listener;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection until its CONNECT is whole, without an actor (docs/connections.md, The handshake): its
 * {@link ConnectionRef} hands it what the transport tells, on the shard's thread, in the transport's turn.
 * It reads up to the CONNECT within the pre-CONNECT limits ({@code max-connect-size}, the shard's
 * partial-packet budget) and the {@code connect-timeout}, a deadline on the shard's queue
 * ({@link ConnectionDeadlines}) rather than a timer; once the CONNECT is whole, the shard spawns the
 * connection's actor, which starts from it ({@link ConnectionHandshake}). A connection that never sends
 * one costs no actor, no mailbox and no timer. Whatever the transport, the same: it only sees a {@link Transport}.
 */
public final class PreConnect {
    private static final Logger LOG = LoggerFactory.getLogger(PreConnect.class);

    private final ShardEnvironment environment;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    /** The listener that accepted it: which versions a CONNECT may ask for. */
    final Listener listener;
    /** When it was accepted, for the connect-to-CONNACK time. */
    final long acceptedAt;
    Transport transport;
    PacketSource packets;
    PacketWriter writer;
    /** The CONNECT, once whole: what the connection's actor starts from. */
    Connect connect;
    private boolean ended;

    public PreConnect(ShardEnvironment environment, ActorRef<ShardRequest> shard, ConnectionRef self, Listener listener) {
        this.environment = environment;
        this.shard = shard;
        this.self = self;
        this.listener = listener;
        this.acceptedAt = environment.clock().getAsLong();
        self.deadline(acceptedAt + environment.settings().connectTimeout().toNanos());  // the connect timeout
    }

    /** What was told to its {@link ConnectionRef}, handled at once on the caller's turn. */
    void handle(Connection.Command command) {
        if (ended) return;
        if (command instanceof Connection.TransportReady ready) {
            onTransportReady(ready.transport());
        } else if (command instanceof Connection.BytesReceived received) {
            onBytesReceived(received);
        } else if (command instanceof Connection.TransportClosed closed) {
            LOG.debug("[{}] connection lost before CONNECT: {}", remote(), closed.cause());
            end();
        } else if (command == Connection.ServerShuttingDown.INSTANCE) {
            end();
        } else if (command == Connection.DeadlineCheck.INSTANCE && environment.clock().getAsLong() - self.deadline() >= 0) {
            LOG.debug("no CONNECT from [{}] within [{}]", remote(), environment.settings().connectTimeout());
            end();
        }  // nothing else is told to a connection the shard does not know yet
    }

    private void onTransportReady(Transport ready) {
        transport = ready;
        var settings = environment.settings();
        packets = new PacketSource(PacketReader.forServer(settings.maxPacketSize(), settings.maxConnectSize()), transport,
                environment.partialPackets());
        writer = new PacketWriter(transport, environment.stats());
        transport.readMore();
    }

    /** Reads up to the CONNECT; what follows it stays buffered for the connection's actor. */
    private void onBytesReceived(Connection.BytesReceived received) {
        environment.stats().bytesReceived(received.bytes().size());
        packets.feed(received.bytes());
        try {
            // The first packet is CONNECT: the reader refuses any other at its first byte [MQTT-3.1.0-1].
            var whole = (Connect) packets.poll();
            if (whole == null) {
                transport.readMore();
                return;
            }
            environment.stats().packetReceived();
            connect = whole;
            self.deadline(Long.MAX_VALUE);
            self.awaitActor();  // the shard spawns it in its turn; what is told meanwhile waits for it
        } catch (MalformedPacketException e) {
            LOG.debug("[{}] {}: {}", transport.remoteAddress(), e.reason(), e.getMessage());
            var version = packets.version();
            writer.version(version);
            ConnectNegotiation.refusalOfMalformed(e.reason(), version).ifPresent(writer);
            end();
        }
    }

    /** For the log: the client's address as the transport has it now (none before it is ready). */
    private Object remote() {
        return transport == null ? "?" : transport.remoteAddress();
    }

    /** Closed before its CONNECT: the socket closes, and the shard counts it gone. */
    private void end() {
        ended = true;
        self.deadline(Long.MAX_VALUE);
        if (writer != null) writer.close();
        if (packets != null) packets.release();
        shard.tell(new ShardRequest.EndedBeforeConnect(self));
    }
}
