package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A shard's part of the graceful shutdown: every connection hears that the server shuts down (a live
 * one from its actor, a parked one through its ref, which resumes it), and the broker hears once none
 * is left on this shard: each has sent its DISCONNECT, given its session back and stopped.
 */
final class ShardShutdown {
    /** The shard's connection actors are its children by this name; its sockets' handler is another child. */
    static final String CONNECTION_PREFIX = "connection-";

    private ActorRef<ShardCommand.ConnectionsGone> replyTo;
    private boolean reported;

    boolean isShuttingDown() {
        return replyTo != null;
    }

    /**
     * Tells every connection: the shard's connection actors, the parked connections among {@code attached},
     * and those still waiting for their CONNECT, which have neither actor nor session.
     */
    void start(ActorRef<ShardCommand.ConnectionsGone> replyTo, Iterable<ActorRef<Void>> children, List<ConnectionRef> attached,
               List<ConnectionRef> awaitingConnect) {
        this.replyTo = replyTo;
        for (var child : children) {
            if (child.path().name().startsWith(CONNECTION_PREFIX)) {
                child.<Connection.Command>unsafeUpcast().tell(Connection.ServerShuttingDown.INSTANCE);
            }
        }
        for (var connection : attached) {
            if (connection.parked() != null) connection.tell(Connection.ServerShuttingDown.INSTANCE);
        }
        awaitingConnect.forEach(connection -> connection.tell(Connection.ServerShuttingDown.INSTANCE));
    }

    /** A connection has stopped or been refused; reports the shard drained once {@code connectionsLeft} is 0. */
    void connectionGone(int shard, int connectionsLeft) {
        if (replyTo == null || reported || connectionsLeft > 0) return;
        reported = true;
        replyTo.tell(new ShardCommand.ConnectionsGone(shard));
    }
}
