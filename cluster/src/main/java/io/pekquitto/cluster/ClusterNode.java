package io.pekquitto.cluster;

import io.pekquitto.shards.settings.ClusterSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * This broker as a node of a cluster: what {@code ops} holds once the actor system, configured with
 * {@link ClusterConfig}, runs. The one place {@code ops} reaches Pekko Cluster through, and only with
 * {@code cluster.enabled}.
 */
public final class ClusterNode {
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(3);

    private final ActorSystem<?> system;
    private final ActorRef<ClusterMembership.Command> membership;

    private ClusterNode(ActorSystem<?> system, ActorRef<ClusterMembership.Command> membership) {
        this.system = system;
        this.membership = membership;
    }

    /**
     * Starts watching the membership of {@code system}'s cluster, into {@code figures}, and joins it: the
     * seed nodes of its configuration, or itself when {@code settings} name none.
     */
    public static ClusterNode start(ActorSystem<?> system, ClusterSettings settings, ClusterFigures figures) {
        var membership = system.systemActorOf(ClusterMembership.create(figures, settings.seedNodes().isEmpty()),
                "cluster-membership", Props.empty());
        return new ClusterNode(system, membership);
    }

    /** The members as this node sees them now, by address. */
    public CompletionStage<List<ClusterMember>> members() {
        return AskPattern.ask(membership, ClusterMembership.GetMembers::new, ASK_TIMEOUT, system.scheduler());
    }
}
