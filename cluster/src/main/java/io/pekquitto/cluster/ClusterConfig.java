package io.pekquitto.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.settings.ClusterSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Pekko configuration that makes the broker's actor system a node of a cluster, from
 * {@link ClusterSettings}: laid over the rest of the actor system's configuration, it wins.
 */
public final class ClusterConfig {

    /** The actor system's name, which is part of every node's address: every node of a cluster has the same. */
    public static final String SYSTEM_NAME = "pekquitto";

    /**
     * How long a node that is not the first seed tries to join before it gives up and stops (exit status 1):
     * a misconfigured seed list, or seeds that are all down, is then seen, not waited out forever.
     */
    static final String GIVE_UP_JOINING = "60s";

    /** How long a stopped node may take to leave the cluster before the broker shuts down. */
    static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(10);

    /** The name of our serializer for the mesh's messages, {@code MeshSerializer} (named, not loaded, here). */
    static final String MESH_SERIALIZER = "pekquitto-mesh";
    static final String MESH_SERIALIZER_CLASS = "io.pekquitto.cluster.mesh.MeshSerializer";
    /** The name of our serializer for a node's counts, {@code CountsSerializer}. */
    static final String COUNTS_SERIALIZER = "pekquitto-counts";
    /** What a shard sends a peer shard, which may be on another node: serialized by {@code MeshSerializer}. */
    static final List<String> MESH_MESSAGES = List.of(
            "io.pekquitto.shards.shard.ShardCommand$Forward", "io.pekquitto.shards.shard.ShardCommand$ForwardAck",
            "io.pekquitto.shards.shard.ShardCommand$Control");

    private ClusterConfig() {}

    /** A seed node's Pekko address, {@code pekko://pekquitto@host:port}. */
    public static String address(ClusterSettings.SeedNode seed) {
        return "pekko://" + SYSTEM_NAME + "@" + seed;
    }

    /**
     * How messages between nodes are serialized: never in Java serialization (Pekko's own messages have
     * their serializers), the mesh's with our {@code MeshSerializer}. Part of {@link #of}; apart for tests.
     */
    public static Config serialization() {
        Map<String, Object> values = new HashMap<>();
        values.put("pekko.actor.allow-java-serialization", "off");
        values.put("pekko.actor.serializers." + MESH_SERIALIZER, MESH_SERIALIZER_CLASS);
        for (var message : MESH_MESSAGES) {
            values.put("pekko.actor.serialization-bindings." + ConfigUtil.quoteString(message), MESH_SERIALIZER);
        }
        values.put("pekko.actor.serializers." + COUNTS_SERIALIZER, "io.pekquitto.cluster.counts.CountsSerializer");
        values.put("pekko.actor.serialization-bindings." + ConfigUtil.quoteString("io.pekquitto.cluster.counts.NodeCounts"),
                COUNTS_SERIALIZER);
        return ConfigFactory.parseMap(values, "pekquitto.cluster serialization");
    }

    /**
     * Messages to another node waiting to be sent, past which Artery drops them: the control plane's are
     * never to be dropped, and a burst of subscriptions announces one per new filter to every remote shard.
     */
    static final int OUTBOUND_QUEUE = 262_144;

    /**
     * The largest frame between nodes: a forwarded batch ({@code MeshPeers.REMOTE_BATCH_BYTES}) or one message
     * as large as the largest packet a client may send, with room for what the mesh adds to it.
     */
    static long maximumFrameSize(int maxPacketSize) {
        return MeshPeers.frameBytes(maxPacketSize);
    }

    /**
     * The configuration for a node with {@code settings} (whether they are enabled is the caller's question)
     * whose clients send packets of at most {@code maxPacketSize} bytes.
     */
    public static Config of(ClusterSettings settings, int maxPacketSize) {
        return of(settings, maxPacketSize, Duration.ofSeconds(10));
    }

    /**
     * The configuration for a node with {@code settings} whose clients send packets of at most {@code maxPacketSize}
     * bytes, and which takes at most {@code handOffTimeout} to hand its sessions on when it leaves (ClusterNode).
     */
    public static Config of(ClusterSettings settings, int maxPacketSize, Duration handOffTimeout) {
        Map<String, Object> values = new HashMap<>();
        values.put("pekko.actor.provider", "cluster");
        values.put("pekko.remote.artery.enabled", "on");
        values.put("pekko.remote.artery.transport", "tcp");
        values.put("pekko.remote.artery.canonical.hostname", settings.host());
        values.put("pekko.remote.artery.canonical.port", settings.port());
        values.put("pekko.remote.artery.bind.hostname", settings.host());
        // The canonical port, unless the others reach it through a proxy or a NAT that forwards to another.
        values.put("pekko.remote.artery.bind.port", settings.bindPort() == 0 ? "" : Integer.toString(settings.bindPort()));
        // Without seed nodes the node joins itself (ClusterMembership), a cluster that others may name as their seed.
        values.put("pekko.cluster.seed-nodes", settings.seedNodes().stream().map(ClusterConfig::address).toList());
        values.put("pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes", GIVE_UP_JOINING);
        values.put("pekko.cluster.downing-provider-class", "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider");
        values.put("pekko.cluster.split-brain-resolver.active-strategy", settings.downing().strategy().configName());
        values.put("pekko.cluster.split-brain-resolver.stable-after", settings.downing().stableAfter().toMillis() + "ms");
        // A downed node, or one that could not join, stops its actor system (and the broker exits 1); one that
        // is stopped leaves the cluster first, in CoordinatedShutdown's cluster-leave phase (Pekko's defaults).
        values.put("pekko.cluster.run-coordinated-shutdown-when-down", "on");
        values.put("pekko.coordinated-shutdown.run-by-actor-system-terminate", "on");
        values.put("pekko.cluster.jmx.enabled", "off");
        values.put("pekko.remote.artery.advanced.outbound-message-queue-size", OUTBOUND_QUEUE);
        values.put("pekko.remote.artery.advanced.maximum-frame-size", maximumFrameSize(maxPacketSize) + "b");
        // The node hands its sessions on, then leaves, before the broker shuts down (ClusterNode): Leaving, Exiting,
        // Removed take a few gossip rounds of 1s; past this the broker shuts down anyway, and the others down it.
        values.put("pekko.coordinated-shutdown.phases.before-service-unbind.timeout", handOffTimeout.plus(LEAVE_TIMEOUT).toMillis() + "ms");
        return ConfigFactory.parseMap(values, "pekquitto.cluster").withFallback(serialization());
    }
}
