package io.pekquitto.shards.shard;

import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.PreConnect;
import io.pekquitto.shards.connection.ShardEnvironment;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.listener.actor.ListenerRequest;
import io.pekquitto.shards.transport.ShardChannels;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * Where a shard's connections and their actors come from: each socket accepted (TCP, TLS, WebSocket) is
 * served without an actor until its CONNECT is whole ({@link PreConnect}, its connect timeout on the
 * shard's deadline queue), then by one; each in-process client and each parked connection resumed gets
 * one too; all children of the shard on its thread, named {@code connection-N}, watched so that the shard
 * hears when one stops. It also holds the shard's sockets ({@link ShardChannels}).
 */
final class ShardConnections {
    private final ActorContext<ShardMessage> context;
    private final ShardEnvironment environment;
    /** One for all the shard's connections: a lambda each would cost 16 bytes per idle connection. */
    private final ConnectionRef.Resumer resumer;
    private final ShardChannels sockets;
    /** Where the connect timeouts of new connections wait. */
    private final ParkedConnections withoutActor;
    /** Connections still waiting for their CONNECT: told when the broker shuts down. */
    private final Set<ConnectionRef> awaitingConnect = new HashSet<>();
    private long sequence;

    ShardConnections(ActorContext<ShardMessage> context, ShardEnvironment environment,
                     ConnectionRef.Resumer resumer, ParkedConnections withoutActor) {
        this.context = context;
        this.environment = environment;
        this.resumer = resumer;
        this.withoutActor = withoutActor;
        // TLS handshakes' slow steps on Pekko's default dispatcher, not on the shard's thread.
        this.sockets = new ShardChannels(context.getSystem().executionContext(), environment.settings().maxPacketSize());
        context.spawn(ShardChannels.closedWithTheShard(sockets), "sockets", DispatcherSelector.sameAsParent());
    }

    void acceptSocket(ListenerRequest.Accept accept) {
        sockets.adopt(accept.socket(), newConnection(accept.listener()), accept.tls(), accept.listener());
    }

    /** An in-process client: a connection without a socket, a child on this thread like the others. */
    void startClient(InProcessClient.Start start) {
        var connection = new ConnectionRef(resumer);
        connection.bind(spawn(InProcessClient.create(environment, shard(), connection, start), connection));
    }

    /** A new actor for a parked connection, from the state it parked with, or for one whose CONNECT is whole. */
    void resume(ConnectionRef connection) {
        Behavior<Connection.Command> actor;
        if (connection.parked() != null) {
            actor = Connection.resume(environment, shard(), connection, connection.parked());
        } else if (connection.preConnect() != null && awaitingConnect.remove(connection)) {
            actor = Connection.afterConnect(environment, shard(), connection);
        } else {
            return;  // served already
        }
        connection.resumed(spawn(actor, connection));
    }

    /** A connection closed before its CONNECT was whole; returns false if it was known gone already. */
    boolean endedBeforeConnect(ConnectionRef connection) {
        return awaitingConnect.remove(connection);
    }

    /** The connections still waiting for their CONNECT, as they are now. */
    List<ConnectionRef> awaitingConnect() {
        return List.copyOf(awaitingConnect);
    }

    private ConnectionRef newConnection(Listener listener) {
        var connection = new ConnectionRef(resumer);
        connection.awaitConnect(new PreConnect(environment, shard(), connection, listener));
        awaitingConnect.add(connection);
        withoutActor.awaitConnect(connection);
        return connection;
    }

    private ActorRef<ShardRequest> shard() {
        return context.getSelf().narrow();
    }

    private ActorRef<Connection.Command> spawn(Behavior<Connection.Command> behavior, ConnectionRef connection) {
        var actor = context.spawn(behavior, ShardShutdown.CONNECTION_PREFIX + (++sequence), DispatcherSelector.sameAsParent());
        context.watchWith(actor, new ShardInternal.ConnectionStopped(connection, actor));
        return actor;
    }
}
