package io.pekquitto.cluster;

import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Watches the cluster's membership for the broker: subscribes to Pekko Cluster's member and reachability
 * events, logs a line at INFO for each change ({@link MemberList} says which), keeps the {@code $SYS}
 * figures ({@link ClusterFigures}) and answers {@link GetMembers}. A node without seed nodes joins itself
 * here: it forms a cluster of its own.
 */
public final class ClusterMembership extends AbstractBehavior<ClusterMembership.Command> {

    public sealed interface Command {}

    /** Asks for the members as this node sees them, by address. */
    public record GetMembers(ActorRef<List<ClusterMember>> replyTo) implements Command {}

    private record MemberChanged(ClusterEvent.MemberEvent event) implements Command {}

    private record ReachabilityChanged(ClusterEvent.ReachabilityEvent event) implements Command {}

    private final MemberList members;
    private final ClusterFigures figures;

    /** @param joinSelf whether this node forms a cluster of its own (it has no seed nodes) */
    public static Behavior<Command> create(ClusterFigures figures, boolean joinSelf) {
        return Behaviors.setup(context -> {
            var cluster = Cluster.get(context.getSystem());
            var self = cluster.selfMember().address();
            cluster.subscriptions().tell(Subscribe.create(
                    context.messageAdapter(ClusterEvent.MemberEvent.class, MemberChanged::new), ClusterEvent.MemberEvent.class));
            cluster.subscriptions().tell(Subscribe.create(
                    context.messageAdapter(ClusterEvent.ReachabilityEvent.class, ReachabilityChanged::new),
                    ClusterEvent.ReachabilityEvent.class));
            if (joinSelf) cluster.manager().tell(Join.create(self));
            context.getLog().info("Cluster: this node is {}, joining {}", hostPort(self), joinSelf ? "itself"
                    : String.join(", ", context.getSystem().settings().config().getStringList("pekko.cluster.seed-nodes")));
            return new ClusterMembership(context, new MemberList(hostPort(self)), figures);
        });
    }

    private ClusterMembership(ActorContext<Command> context, MemberList members, ClusterFigures figures) {
        super(context);
        this.members = members;
        this.figures = figures;
        figures.update(members);
    }

    /** {@code host:port}, as the settings name a node. */
    static String hostPort(Address address) {
        return address.getHost().orElse("?") + ":" + address.getPort().map(String::valueOf).orElse("?");
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(MemberChanged.class, changed -> log(onMemberEvent(changed.event())))
                .onMessage(ReachabilityChanged.class, changed -> log(onReachabilityEvent(changed.event())))
                .onMessage(GetMembers.class, get -> {
                    get.replyTo().tell(members.members());
                    return this;
                })
                .build();
    }

    /** The line for a change, or null for an event that changes nothing an operator counts. */
    private String onMemberEvent(ClusterEvent.MemberEvent event) {
        var address = hostPort(event.member().address());
        if (event instanceof ClusterEvent.MemberJoined) return members.joining(address);
        if (event instanceof ClusterEvent.MemberWeaklyUp) return members.weaklyUp(address);
        if (event instanceof ClusterEvent.MemberUp) return members.up(address);
        if (event instanceof ClusterEvent.MemberLeft) return members.leaving(address);
        if (event instanceof ClusterEvent.MemberExited) return members.exiting(address);
        if (event instanceof ClusterEvent.MemberDowned) return members.downed(address);
        if (event instanceof ClusterEvent.MemberRemoved) return members.removed(address);
        return null;  // preparing for a full cluster shutdown: not used by the broker
    }

    private String onReachabilityEvent(ClusterEvent.ReachabilityEvent event) {
        var address = hostPort(event.member().address());
        if (event instanceof ClusterEvent.UnreachableMember) return members.unreachable(address);
        if (event instanceof ClusterEvent.ReachableMember) return members.reachable(address);
        return null;
    }

    private Behavior<Command> log(String line) {
        if (line != null) {
            figures.update(members);
            getContext().getLog().info(line);
        }
        return this;
    }
}
