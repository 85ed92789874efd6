package io.pekquitto.shards.node;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * Where a node's {@link MeshPeers} are found by what Pekko creates itself, the cluster's serializer above all:
 * the broker publishes them here when it is a node of a cluster.
 */
public final class NodeMesh implements Extension {
    private static final Id ID = new Id();
    private final AtomicReference<MeshPeers> peers = new AtomicReference<>();

    private static final class Id extends ExtensionId<NodeMesh> {
        @Override
        public NodeMesh createExtension(ActorSystem<?> system) {
            return new NodeMesh();
        }
    }

    public static NodeMesh get(ActorSystem<?> system) {
        return system.registerExtension(ID);
    }

    public void publish(MeshPeers meshPeers) {
        if (!peers.compareAndSet(null, meshPeers)) throw new IllegalStateException("a second broker's mesh in one actor system");
    }

    /** The node's shards, or empty before the broker has started. */
    public Optional<MeshPeers> peers() {
        return Optional.ofNullable(peers.get());
    }
}
