package io.pekquitto.shards.listener.actor;

import io.pekquitto.shards.connection.ShardMessage;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The shard that serves each connection a listener accepts, counted in as it is chosen (the shard counts it
 * out when the connection ends): the broker's placement's pick, or the shard that accepted it itself.
 */
public interface ConnectionPlacement {

    /** The shard the broker's {@code placement} picks, for a socket accepted on the listener's own thread. */
    ActorRef<ShardMessage> next();

    /** Shard {@code index}, for a socket its own listening socket accepted ({@code reuse-port}), on its thread. */
    ActorRef<ShardMessage> acceptedBy(int index);
}
