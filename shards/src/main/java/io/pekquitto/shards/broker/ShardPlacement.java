package io.pekquitto.shards.broker;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.actor.ConnectionPlacement;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.settings.Placement;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Picks the shard for each new connection of one listener ({@link Placement}). {@link #next()} is called by that
 * listener only, one connection at a time (on its acceptor's thread); {@link #acceptedBy} on the accepting shard's
 * thread; the live counts are kept by the shards themselves.
 */
final class ShardPlacement implements ConnectionPlacement {
    private final Placement placement;
    private final List<ActorRef<ShardMessage>> shards;
    private final AtomicIntegerArray connectionsPerShard;
    private int next;

    ShardPlacement(Placement placement, List<ActorRef<ShardMessage>> shards, AtomicIntegerArray connectionsPerShard) {
        this.placement = placement;
        this.shards = List.copyOf(shards);
        this.connectionsPerShard = connectionsPerShard;
    }

    /**
     * The shard for a new connection, counted at once so that a burst of accepts spreads too: the shard
     * decrements the count when the connection it is given stops.
     */
    @Override
    public ActorRef<ShardMessage> next() {
        return shards.get(nextIndex());
    }

    /** The shard that accepted a connection on its own socket ({@code reuse-port}), counted as {@link #next()}'s is. */
    @Override
    public ActorRef<ShardMessage> acceptedBy(int index) {
        connectionsPerShard.incrementAndGet(index);
        return shards.get(index);
    }

    /** The index of {@link #next()}'s shard. */
    int nextIndex() {
        int chosen;
        if (placement == Placement.LEAST_CONNECTIONS) {
            chosen = leastLoaded(connectionsPerShard);
        } else {
            chosen = next;
            next = (next + 1) % shards.size();
        }
        connectionsPerShard.incrementAndGet(chosen);
        return chosen;
    }

    /**
     * The shard for an in-process client, counted at once: its client id's home, where the claim of its
     * session is settled without a message to another shard; the least loaded for an empty client id,
     * whose id the client is assigned there.
     */
    static int forInProcessClient(String clientId, AtomicIntegerArray connectionsPerShard) {
        int chosen = clientId.isEmpty()
                ? leastLoaded(connectionsPerShard) : SessionDirectory.homeOf(clientId, connectionsPerShard.length());
        connectionsPerShard.incrementAndGet(chosen);  // the shard decrements when the client stops
        return chosen;
    }

    private static int leastLoaded(AtomicIntegerArray connectionsPerShard) {
        int chosen = 0;
        for (int i = 1; i < connectionsPerShard.length(); i++) {
            if (connectionsPerShard.get(i) < connectionsPerShard.get(chosen)) chosen = i;
        }
        return chosen;
    }
}
