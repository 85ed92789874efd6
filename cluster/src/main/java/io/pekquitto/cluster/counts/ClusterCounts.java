package io.pekquitto.cluster.counts;

import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.stats.BrokerFigures;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * The cluster's totals for {@code $SYS/broker/cluster/...} (docs/cluster.md, What the operator sees): every
 * {@code sys-interval} each node takes its broker's figures and tells every other node its counts
 * ({@link NodeCounts}, found through the cluster's receptionist); each node sums the latest counts of the nodes
 * listed now, its own included, and publishes each node's counts too. A node that leaves stops counting as
 * soon as the receptionist drops it.
 */
public final class ClusterCounts {
    /** Every node's counter, in the cluster's receptionist. */
    public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "pekquitto-cluster-counts");

    public sealed interface Command permits NodeCounts, Listed, Tick, Missed, Own {}

    record Listed(Set<ActorRef<Command>> counters) implements Command {}

    enum Tick implements Command { INSTANCE }

    /** The broker did not answer in time: the next tick asks again. */
    enum Missed implements Command { INSTANCE }

    record Own(BrokerFigures figures) implements Command {}

    private final ActorContext<Command> context;
    private final String node;
    private final Consumer<Map<String, String>> publish;
    private Set<ActorRef<Command>> counters = Set.of();
    private final Map<String, NodeCounts> latest = new HashMap<>();
    /** Every node counted so far, by address: one gone is said to be gone (its retained topics stay). */
    private final Set<String> seen = new TreeSet<>();

    private ClusterCounts(ActorContext<Command> context, String node, Consumer<Map<String, String>> publish) {
        this.context = context;
        this.node = node;
        this.publish = publish;
    }

    /**
     * @param broker  the node's broker, asked for its figures
     * @param publish where the totals go (the cluster's part of {@code $SYS})
     */
    public static Behavior<Command> create(ActorRef<BrokerCommand> broker, Duration every, Consumer<Map<String, String>> publish) {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            var self = context.getSelf();
            var receptionist = context.getSystem().receptionist();
            receptionist.tell(Receptionist.register(KEY, self));
            receptionist.tell(Receptionist.subscribe(KEY, context.messageAdapter(Receptionist.Listing.class,
                    listing -> new Listed(listing.getServiceInstances(KEY)))));
            timers.startTimerWithFixedDelay(Tick.INSTANCE, every);
            var counts = new ClusterCounts(context, context.getSystem().address().hostPort(), publish);
            return Behaviors.receive(Command.class)
                    .onMessage(Listed.class, listed -> counts.listed(listed.counters()))
                    .onMessageEquals(Tick.INSTANCE, () -> {
                        context.ask(BrokerFigures.class, broker, every, BrokerCommand.GetFigures::new,
                                (figures, failure) -> figures == null ? Missed.INSTANCE : new Own(figures));
                        return Behaviors.same();
                    })
                    .onMessageEquals(Missed.INSTANCE, Behaviors::same)
                    .onMessage(Own.class, own -> counts.own(NodeCounts.of(counts.node, own.figures())))
                    .onMessage(NodeCounts.class, counts::heard)
                    .build();
        }));
    }

    private Behavior<Command> listed(Set<ActorRef<Command>> now) {
        counters = now;
        var nodes = new HashSet<String>();
        for (var counter : now) nodes.add(nodeOf(counter));
        latest.keySet().retainAll(nodes);
        publishTotals();
        return Behaviors.same();
    }

    private String nodeOf(ActorRef<Command> counter) {
        var address = counter.path().address();
        return address.hasLocalScope() ? node : address.hostPort();
    }

    private Behavior<Command> own(NodeCounts mine) {
        latest.put(node, mine);
        for (var counter : counters) if (!counter.equals(context.getSelf())) counter.tell(mine);
        publishTotals();
        return Behaviors.same();
    }

    private Behavior<Command> heard(NodeCounts theirs) {
        latest.put(theirs.node(), theirs);
        publishTotals();
        return Behaviors.same();
    }

    private void publishTotals() {
        var total = new NodeCounts("cluster", 0, 0, 0, 0, 0);
        for (var counts : latest.values()) total = total.plus(counts);
        var topics = totals(total, latest.size());
        seen.addAll(latest.keySet());
        for (var node : seen) topics.putAll(perNode(node, latest.get(node)));
        publish.accept(topics);
    }

    /**
     * One node's topics, {@code cluster/node/HOST:PORT/...}: its state ({@code up} while it is counted, then
     * {@code gone}) and its counts while it is up (for the status page's table of nodes).
     */
    static Map<String, String> perNode(String node, NodeCounts counts) {
        var prefix = "cluster/node/" + node.substring(node.indexOf('@') + 1) + "/";
        var topics = new LinkedHashMap<String, String>();
        topics.put(prefix + "state", counts == null ? "gone" : "up");
        if (counts == null) return topics;
        topics.put(prefix + "clients/connected", Long.toString(counts.connected()));
        topics.put(prefix + "sessions", Long.toString(counts.sessions()));
        topics.put(prefix + "subscriptions/count", Long.toString(counts.subscriptions()));
        topics.put(prefix + "messages/received", Long.toString(counts.received()));
        topics.put(prefix + "messages/sent", Long.toString(counts.sent()));
        return topics;
    }

    /** The {@code $SYS/broker/} topics of the totals of {@code nodes} nodes, in the order they are published. */
    static LinkedHashMap<String, String> totals(NodeCounts total, int nodes) {
        var topics = new LinkedHashMap<String, String>();
        topics.put("cluster/counted-nodes", Integer.toString(nodes));
        topics.put("cluster/clients/connected", Long.toString(total.connected()));
        topics.put("cluster/sessions", Long.toString(total.sessions()));
        topics.put("cluster/subscriptions/count", Long.toString(total.subscriptions()));
        topics.put("cluster/messages/received", Long.toString(total.received()));
        topics.put("cluster/messages/sent", Long.toString(total.sent()));
        return topics;
    }
}
