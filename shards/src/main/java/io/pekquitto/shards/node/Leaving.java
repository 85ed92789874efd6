package io.pekquitto.shards.node;

import io.pekquitto.shards.connection.ShardMessage;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a node that leaves its cluster tells its own shards (docs/cluster.md, A node leaving), once the ring of homes
 * has none of them: hand every session that outlives its connection to its home on another node.
 */
public final class Leaving {
    private Leaving() {}

    /** To each shard of the node: hand the sessions held here to other nodes; {@code replyTo} hears when none is left. */
    public record Evacuate(ActorRef<Evacuated> replyTo) implements ShardMessage {}

    /** The shard {@code index} of this node holds no session that outlives its connection any more. */
    public record Evacuated(int index) {}
}
