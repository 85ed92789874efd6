package io.pekquitto.cluster;

import io.pekquitto.cluster.counts.ClusterCounts;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.settings.ClusterSettings;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.MemberStatus;

/**
 * This broker as a node of a cluster: what {@code ops} holds once the actor system, configured with
 * {@link ClusterConfig}, runs. The one place {@code ops} reaches Pekko Cluster through, and only with
 * {@code cluster.enabled}.
 */
public final class ClusterNode {
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration LEAVE_POLL = Duration.ofMillis(50);
    /** A node in these states has left, or is out: Leaving turns to Exiting once the others have seen it. */
    private static final Set<MemberStatus> GONE = Set.of(MemberStatus.exiting(), MemberStatus.removed(), MemberStatus.down());

    private final ActorSystem<?> system;
    private final ActorRef<ClusterMembership.Command> membership;

    private ClusterNode(ActorSystem<?> system, ActorRef<ClusterMembership.Command> membership) {
        this.system = system;
        this.membership = membership;
    }

    /**
     * Starts watching the membership of {@code system}'s cluster, into {@code figures}, and joins it: the
     * seed nodes of its configuration, or itself when {@code settings} name none; puts the broker's shards in
     * the cluster's mesh, and sums every node's counts ({@code broker}'s figures) each {@code sysInterval}.
     */
    public static ClusterNode start(ActorSystem<?> system, ActorRef<BrokerCommand> broker, ClusterSettings settings,
                                    ClusterFigures figures, Duration sysInterval, Duration handOffTimeout) {
        var membership = system.systemActorOf(ClusterMembership.create(figures, settings.seedNodes().isEmpty()),
                "cluster-membership", Props.empty());
        var mesh = system.systemActorOf(ClusterMesh.create(), "cluster-mesh", Props.empty());
        system.systemActorOf(ClusterCounts.create(broker, sysInterval, figures::totals), "cluster-counts", Props.empty());
        leaveFirst(system, broker, mesh, handOffTimeout);
        return new ClusterNode(system, membership);
    }

    /**
     * A node that is stopped leaves the cluster before the broker shuts down, so that the others see it
     * leave (Leaving, Exiting, then Removed once it is gone) rather than lose it (unreachable, then downed
     * after stable-after). Pekko's own leave, in CoordinatedShutdown's cluster-leave phase, comes too late
     * for the broker, which stops its actor system once its clients are gone, phases earlier; so the
     * broker waits here until the node is Exiting (a second or two). Pekko's confirmation of the exit, a
     * later phase, is then cut short: the others remove the node once they no longer hear it, without
     * downing it (measured: about 5s).
     *
     * <p>Before it leaves, a node that is Up hands its sessions to the others (docs/cluster.md, A node leaving): its
     * listeners close, so that no client starts a session here meanwhile, and its shards hand each session that
     * outlives its connection to its home on another node, its connection told that the server shuts down
     * (DISCONNECT 0x8B), within {@code handOffTimeout}. A node downed has no one to hand them to.
     */
    private static void leaveFirst(ActorSystem<?> system, ActorRef<BrokerCommand> broker, ActorRef<ClusterMesh.Command> mesh,
                                   Duration handOffTimeout) {
        var cluster = org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(system));
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "pekquitto-cluster-leave", () -> {
            if (cluster.selfMember().status() != MemberStatus.up()) return leave(system);
            broker.tell(BrokerCommand.StopAccepting.INSTANCE);
            return AskPattern.<ClusterMesh.Command, Done>ask(mesh, ClusterMesh.Leave::new, handOffTimeout, system.scheduler())
                    .exceptionally(timedOut -> {
                        system.log().warn("Leaving the cluster: sessions not handed on within {} stay in this node's store", handOffTimeout);
                        return Done.done();
                    })
                    .thenCompose(handedOn -> leave(system));
        });
    }

    /** Leaves the cluster; complete once this node is Exiting, or out. */
    private static CompletionStage<Done> leave(ActorSystem<?> system) {
        var cluster = org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(system));
        var exiting = new CompletableFuture<Done>();
        Runnable check = () -> {
            if (GONE.contains(cluster.selfMember().status())) exiting.complete(Done.done());
        };
        var poll = system.scheduler().scheduleAtFixedRate(Duration.ZERO, LEAVE_POLL, check, system.executionContext());
        exiting.whenComplete((done, failure) -> poll.cancel());
        cluster.registerOnMemberRemoved(() -> exiting.complete(Done.done()));  // or shut down
        cluster.leave(cluster.selfAddress());
        return exiting;
    }

    /** The members as this node sees them now, by address. */
    public CompletionStage<List<ClusterMember>> members() {
        return AskPattern.ask(membership, ClusterMembership.GetMembers::new, ASK_TIMEOUT, system.scheduler());
    }
}
