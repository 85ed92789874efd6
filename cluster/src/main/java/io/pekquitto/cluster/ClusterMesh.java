package io.pekquitto.cluster;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.node.Leaving;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.node.NodeMesh;
import io.pekquitto.shards.shard.ShardCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * Puts every node's shards in one mesh (docs/cluster.md, One mesh across nodes): lists this node's shards with
 * Pekko's receptionist, which in a cluster is the cluster's (Distributed Data), and tells this node's shards
 * which shards of other nodes are listed now ({@link ShardCommand.PeersChanged}: joined, and gone once their node
 * was removed, and whether it left or was lost: {@link Departures}). A shard of a node only unreachable stays
 * listed: the node may come back, its clients still connected; one of a node that left and turned unreachable is
 * gone at once (it does not come back, and it handed its sessions on before it left). A shard of another node is numbered here by its
 * node's address and its index there ({@link MeshPeers#remoteId}), as the serializer numbers the sender of what
 * it reads. A node that leaves lists its shards as leaving too ({@link #LEAVING}): every node takes up a ring of homes
 * without them, and the leaving node's shards hand their sessions on ({@link Leave}).
 */
public final class ClusterMesh {
    /** Every broker's shards, in the cluster's receptionist. */
    public static final ServiceKey<ShardMessage> SHARDS = ServiceKey.create(ShardMessage.class, "pekquitto-shards");
    /** The shards of nodes leaving (docs/cluster.md, A node leaving): home to none, their sessions on their way out. */
    static final ServiceKey<ShardMessage> LEAVING = ServiceKey.create(ShardMessage.class, "pekquitto-leaving-shards");
    /** How often the mesh looks for the broker's shards until the broker has started. */
    private static final Duration BROKER_POLL = Duration.ofMillis(100);
    private static final String SHARD_NAME = "shard-";
    /** How often the mesh looks whether every member is listed, until it is. */
    private static final Duration CHECK_WHOLE = Duration.ofMillis(200);

    sealed interface Command {}

    private record Listed(Set<ActorRef<ShardMessage>> shards) implements Command {}

    /** This node leaves the cluster: its shards hand their sessions to the other nodes first; {@code replyTo} hears when. */
    record Leave(ActorRef<Done> replyTo) implements Command {}

    private record LeavingListed(Set<ActorRef<ShardMessage>> shards) implements Command {}

    private record ShardEvacuated(Leaving.Evacuated evacuated) implements Command {}

    private record MemberChanged(ClusterEvent.MemberEvent event) implements Command {}

    private record ReachabilityChanged(ClusterEvent.ReachabilityEvent event) implements Command {}

    private enum LookForBroker implements Command { INSTANCE }

    /** Whether every member Up is listed now, until the first ring is told. */
    private enum CheckWhole implements Command { INSTANCE }

    private final ActorContext<Command> context;
    private final MeshPeers peers;
    /** The remote shards listed now, by id. */
    private final Map<Integer, ActorRef<ShardMessage>> listed = new HashMap<>();
    /** The receptionist's last listing of every node's shards, reachable or not. */
    private Set<ActorRef<ShardMessage>> lastListing = Set.of();
    /**
     * Nodes that left (Leaving or Exiting) and are unreachable: gone, though not removed yet. Such a node handed its
     * sessions on before it left and stops right after; until the others remove it (seconds, or longer while the
     * cluster settles a new member), a claim or a crossing that waited for its shards would wait for nothing.
     */
    private final Set<String> departed = new HashSet<>();
    /** Whether the shards were told of the other nodes' shards once: until then they order no claim. */
    private boolean told;
    private final Departures departures = new Departures();
    /** The shards of nodes leaving now, this node's included once it leaves. */
    private List<Integer> leaving = List.of();
    /** Who waits for this node's shards to hand their sessions on, once it leaves. */
    private ActorRef<Done> leaveReplyTo;
    /** This node's shards that still hold sessions to hand on; null until they are told to. */
    private Set<Integer> evacuating;

    private ClusterMesh(ActorContext<Command> context, MeshPeers peers) {
        this.context = context;
        this.peers = peers;
    }

    static Behavior<Command> create() {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            timers.startTimerWithFixedDelay(LookForBroker.INSTANCE, BROKER_POLL);
            return Behaviors.receiveMessage(message -> {
                if (message instanceof Leave leave) leave.replyTo().tell(Done.done());  // no broker yet: nothing to hand on
                var started = NodeMesh.get(context.getSystem()).peers().filter(MeshPeers::started);
                if (message != LookForBroker.INSTANCE || started.isEmpty()) return Behaviors.same();
                timers.cancelAll();
                return new ClusterMesh(context, started.get()).start();
            });
        }));
    }

    private Behavior<Command> start() {
        context.setLoggerName(ClusterMesh.class);
        var receptionist = context.getSystem().receptionist();
        for (int i = 0; i < peers.localShards(); i++) receptionist.tell(Receptionist.register(SHARDS, peers.ref(i)));
        // Reachable or not: a node is gone once it is removed (downed, or left), not while it may come back.
        // One adapter per message class: the listings of both keys come through it.
        var adapter = context.messageAdapter(Receptionist.Listing.class, listing -> listing.isForKey(SHARDS)
                ? new Listed(listing.getAllServiceInstances(SHARDS)) : new LeavingListed(listing.getAllServiceInstances(LEAVING)));
        receptionist.tell(Receptionist.subscribe(SHARDS, adapter));
        receptionist.tell(Receptionist.subscribe(LEAVING, adapter));
        Cluster.get(context.getSystem()).subscriptions().tell(Subscribe.create(
                context.messageAdapter(ClusterEvent.MemberEvent.class, MemberChanged::new), ClusterEvent.MemberEvent.class));
        Cluster.get(context.getSystem()).subscriptions().tell(Subscribe.create(
                context.messageAdapter(ClusterEvent.ReachabilityEvent.class, ReachabilityChanged::new),
                ClusterEvent.ReachabilityEvent.class));
        return Behaviors.withTimers(timers -> Behaviors.receive(Command.class)
                .onMessage(Listed.class, this::onListed)
                .onMessage(MemberChanged.class, this::onMemberChanged)
                .onMessage(ReachabilityChanged.class, this::onReachabilityChanged)
                .onMessage(Leave.class, this::onLeave)
                .onMessage(LeavingListed.class, this::onLeavingListed)
                .onMessage(ShardEvacuated.class, this::onShardEvacuated)
                .onMessageEquals(CheckWhole.INSTANCE, () -> {
                    if (!told && isWhole()) tell(List.copyOf(listed.keySet()), List.of());
                    if (!told) timers.startSingleTimer(CheckWhole.INSTANCE, CHECK_WHOLE);
                    return Behaviors.same();
                })
                .build());
    }

    /**
     * Whether the shards of every other member Up are listed: only then does the first ring of homes hold
     * every home of the cluster (a client id claimed here before would be ordered apart from the others').
     */
    private boolean isWhole() {
        var cluster = Cluster.get(context.getSystem());
        if (cluster.selfMember().status() != MemberStatus.up()) return false;
        var nodes = new HashSet<String>();
        listed.keySet().forEach(id -> nodes.add(peers.name(id).node()));
        for (var member : cluster.state().getMembers()) {
            var node = member.address().hostPort();
            if (member.status() == MemberStatus.up() && !node.equals(peers.node()) && !nodes.contains(node)) return false;
        }
        return true;
    }

    /** Whether the member at {@code node} joined the cluster after this one (Pekko's age of members): it catches up. */
    private boolean isYounger(String node) {
        var cluster = Cluster.get(context.getSystem());
        for (var member : cluster.state().getMembers()) {
            if (member.address().hostPort().equals(node)) return cluster.selfMember().isOlderThan(member);
        }
        return false;
    }

    private void tell(List<Integer> joined, List<Integer> gone) {
        told = true;
        context.getLog().info("Mesh: {} shards of other nodes ({} joined, {} gone), {} shards leaving", listed.size(), joined.size(),
                gone.size(), leaving.size());
        var younger = joined.stream().filter(id -> isYounger(peers.name(id).node())).toList();
        var left = gone.stream().filter(id -> departures.left(peers.name(id).node())).toList();
        var change = new ShardCommand.PeersChanged(List.copyOf(joined), List.copyOf(gone), younger, left, leaving);
        for (int i = 0; i < peers.localShards(); i++) peers.ref(i).tell(change);
    }

    /**
     * This node leaves: it lists its shards as leaving, so that every node takes up the ring of homes without them;
     * once this node has too, its shards hand their sessions on ({@link #onLeavingListed}). Nothing to hand on for a
     * node whose mesh has no other node's shard that stays.
     */
    private Behavior<Command> onLeave(Leave leave) {
        if (leaveReplyTo != null) return Behaviors.same();
        boolean anotherStays = listed.keySet().stream().anyMatch(id -> !leaving.contains(id));
        if (!told || !anotherStays) {
            leave.replyTo().tell(Done.done());
            return Behaviors.same();
        }
        leaveReplyTo = leave.replyTo();
        context.getLog().info("Leaving the cluster: handing this node's sessions to the other nodes");
        var receptionist = context.getSystem().receptionist();
        for (int i = 0; i < peers.localShards(); i++) receptionist.tell(Receptionist.register(LEAVING, peers.ref(i)));
        return Behaviors.same();
    }

    /** The shards of nodes leaving changed: the ring of homes changes; this node's own shards evacuate once it is theirs. */
    private Behavior<Command> onLeavingListed(LeavingListed listing) {
        var now = new ArrayList<Integer>();
        for (var shard : listing.shards()) {
            int id = idOf(shard);
            if (id >= 0 && (peers.isLocal(id) || listed.containsKey(id))) now.add(id);
        }
        now.sort(null);
        if (now.equals(leaving)) return Behaviors.same();
        leaving = List.copyOf(now);
        if (told) tell(List.of(), List.of());
        boolean ownListed = true;
        for (int i = 0; i < peers.localShards(); i++) ownListed &= leaving.contains(i);
        if (leaveReplyTo != null && evacuating == null && ownListed) {
            evacuating = new HashSet<>();
            var replyTo = context.messageAdapter(Leaving.Evacuated.class, ShardEvacuated::new);
            for (int i = 0; i < peers.localShards(); i++) {
                evacuating.add(i);
                peers.ref(i).tell(new Leaving.Evacuate(replyTo));
            }
        }
        return Behaviors.same();
    }

    /** A listed shard's id: its index for one of this node's, else its remote id ({@link MeshPeers#remoteId}); -1 if no shard. */
    private int idOf(ActorRef<ShardMessage> shard) {
        var address = shard.path().address();
        var name = shard.path().name();
        if (!name.startsWith(SHARD_NAME)) return -1;
        int index = Integer.parseInt(name.substring(SHARD_NAME.length()));
        return address.hasLocalScope() ? index : peers.remoteId(address.hostPort(), index);
    }

    private Behavior<Command> onShardEvacuated(ShardEvacuated shard) {
        if (evacuating != null && evacuating.remove(shard.evacuated().index()) && evacuating.isEmpty()) {
            context.getLog().info("Leaving the cluster: every session handed on");
            leaveReplyTo.tell(Done.done());
        }
        return Behaviors.same();
    }

    private Behavior<Command> onMemberChanged(MemberChanged changed) {
        var event = changed.event();
        var node = event.member().address().hostPort();
        if (event instanceof ClusterEvent.MemberLeft || event instanceof ClusterEvent.MemberExited) departures.leaving(node);
        if (event instanceof ClusterEvent.MemberDowned) departures.downed(node);
        if (event instanceof ClusterEvent.MemberJoined) departures.joined(node);
        if (event instanceof ClusterEvent.MemberRemoved) departed.remove(node);  // a new incarnation may join there
        return Behaviors.same();
    }

    /** A node that left and turns unreachable is gone now, as it would be once removed. */
    private Behavior<Command> onReachabilityChanged(ReachabilityChanged changed) {
        var member = changed.event().member();
        boolean left = member.status() == MemberStatus.leaving() || member.status() == MemberStatus.exiting();
        if (!(changed.event() instanceof ClusterEvent.UnreachableMember) || !left) return Behaviors.same();
        if (departed.add(member.address().hostPort())) onListed(new Listed(lastListing));
        return Behaviors.same();
    }

    private Behavior<Command> onListed(Listed listing) {
        lastListing = listing.shards();
        var now = new HashMap<Integer, ActorRef<ShardMessage>>();
        for (var shard : listing.shards()) {
            if (departed.contains(shard.path().address().hostPort())) continue;
            int id = idOf(shard);
            if (id >= 0 && !peers.isLocal(id)) now.put(id, shard);
        }
        var joined = new ArrayList<Integer>();
        var gone = new ArrayList<Integer>();
        listed.forEach((id, shard) -> {
            if (!shard.equals(now.get(id))) gone.add(id);  // its node left, or came back as a new incarnation
        });
        now.forEach((id, shard) -> {
            if (!shard.equals(listed.get(id))) joined.add(id);
        });
        gone.forEach(id -> peers.remote(id, null));
        leaving = leaving.stream().filter(id -> peers.isLocal(id) || now.containsKey(id)).toList();
        joined.forEach(id -> peers.remote(id, now.get(id)));
        listed.clear();
        listed.putAll(now);
        if (!told) {
            context.getSelf().tell(CheckWhole.INSTANCE);  // the first time, every shard listed is told at once
        } else if (!joined.isEmpty() || !gone.isEmpty()) {
            tell(joined, gone);
        }
        return Behaviors.same();
    }
}
