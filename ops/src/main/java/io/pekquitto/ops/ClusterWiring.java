package io.pekquitto.ops;

import com.typesafe.config.Config;
import io.pekquitto.cluster.ClusterConfig;
import io.pekquitto.cluster.ClusterFigures;
import io.pekquitto.cluster.ClusterMember;
import io.pekquitto.cluster.ClusterNode;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ClusterSettings;
import io.pekquitto.shards.stats.SysExtras;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The broker as a node of a cluster (docs/cluster.md), for {@link Pekquitto}: made only with
 * {@code cluster.enabled}, and the one class of ops that names the cluster module's, so that a broker
 * without a cluster loads none of them, nor any of Pekko Remote and Cluster (ClusterOffIT). Its methods
 * answer in types of shards and Pekko's actor module.
 */
final class ClusterWiring {
    private final ClusterSettings settings;
    private final int maxPacketSize;
    private final Duration sysInterval;
    private final Duration shutdownTimeout;
    private final ClusterFigures figures = new ClusterFigures();
    private Optional<ClusterNode> node = Optional.empty();

    ClusterWiring(BrokerSettings broker) {
        this.settings = broker.cluster();
        this.maxPacketSize = broker.maxPacketSize();
        this.sysInterval = broker.operations().sysInterval();
        this.shutdownTimeout = broker.operations().shutdownTimeout();
    }

    /** {@code config} with this node's cluster configuration over it. */
    Config config(Config config) {
        return ClusterConfig.of(settings, maxPacketSize, shutdownTimeout).withFallback(config);
    }

    /** The cluster's {@code $SYS} topics, for the broker to publish. */
    SysExtras sysExtras() {
        return figures;
    }

    /** Joins the cluster and watches its membership; once the actor system, whose guardian is the broker, runs. */
    void start(ActorSystem<BrokerCommand> system) {
        node = Optional.of(ClusterNode.start(system, system, settings, figures, sysInterval, shutdownTimeout));
    }

    CompletionStage<List<ClusterMember>> members() {
        return node.map(ClusterNode::members).orElse(CompletableFuture.completedFuture(List.of()));
    }
}
