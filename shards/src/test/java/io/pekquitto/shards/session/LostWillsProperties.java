package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The wills of lost nodes' clients (docs/cluster.md, Wills across nodes): three nodes' shards ({@link SessionsOfNodes})
 * while connections of three client ids, with a will of no delay, a delayed one or none, come and go on any live shard
 * (normal DISCONNECT, lost connection, failed connection, taken over), every message between two shards delayed any
 * time but kept in order; two of the nodes are lost (or leave) in turn. Each time the mesh is quiet before a loss, the
 * keepers hold exactly the wills of connected clients and of sessions waiting out a will's delay; at a loss they publish
 * exactly the wills of those held on the lost node, and none of a node that left; and no will is ever published twice. Fails if a holder does not forget a will
 * (a normal DISCONNECT's would be published at the loss), or does not find a new keeper when its keeper's node goes.
 */
class LostWillsProperties {
    private static final List<String> CLIENTS = List.of("a", "b", "c");

    sealed interface Step {}

    /** {@code willDelay}: the will's Will Delay Interval, or NO_WILL. */
    record Connect(String clientId, int shard, boolean cleanStart, long willDelay) implements Step {}

    record End(String clientId, SessionsOfNodes.Ending how) implements Step {}

    /** A node is lost, or leaves the cluster ({@code leaves}: it published its clients' wills itself). */
    record Lose(boolean leaves) implements Step {}

    @Provide
    Arbitrary<List<Step>> scripts() {
        var client = Arbitraries.of(CLIENTS);
        Arbitrary<Step> connect = Combinators.combine(client, Arbitraries.integers().between(0, 5), Arbitraries.of(true, false),
                Arbitraries.of(SessionsOfNodes.NO_WILL, 0L, 30L)).as(Connect::new);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(6, connect),
                Tuple.of(5, Combinators.combine(client, Arbitraries.frequency(Tuple.of(2, SessionsOfNodes.Ending.DISCONNECT),
                        Tuple.of(2, SessionsOfNodes.Ending.DROP), Tuple.of(1, SessionsOfNodes.Ending.FAIL))).as(End::new)),
                Tuple.of(1, Arbitraries.of(true, false).map(Lose::new)));
        return step.list().ofMinSize(4).ofMaxSize(30);
    }

    @Property(tries = 1000)
    void theWillsOfALostNodesClientsArePublishedOnceByTheOthers(@ForAll @IntRange(min = 1, max = 2) int perNode,
                                                                @ForAll("scripts") List<Step> script, @ForAll Random random) {
        var run = new Run(new SessionsOfNodes(3, perNode), random);
        for (var step : script) run.step(step);
        run.lose(false);  // at least one node is lost in every script
        run.checkOnce();
    }

    /** The script against the shards; {@link SessionsOfNodes#wills} follows what must be known of the wills. */
    private static final class Run {
        final SessionsOfNodes nodes;
        final Random random;
        int losses;

        Run(SessionsOfNodes nodes, Random random) {
            this.nodes = nodes;
            this.random = random;
        }

        void step(Step step) {
            // Some of what is on its way is delivered before the step: any interleaving of the pairs.
            while (random.nextInt(3) > 0 && nodes.step(random)) {
                // again
            }
            if (step instanceof Lose lose) {
                if (losses < 2) lose(lose.leaves());
            } else if (step instanceof Connect c) {
                var live = nodes.ring().shards();
                nodes.connect(c.clientId(), live[c.shard() % live.length], c.cleanStart(), c.willDelay());
            } else {
                var end = (End) step;
                nodes.end(end.clientId(), end.how());
            }
        }

        /** Once all is delivered, one of the live nodes is lost, or leaves (unless one is left). */
        void lose(boolean leaves) {
            while (nodes.step(random)) {
                // again
            }
            var live = new TreeSet<Integer>();
            for (int shard : nodes.ring().shards()) live.add(nodes.nodeOf(shard));
            if (live.size() < 2) return;
            int node = new ArrayList<>(live).get(random.nextInt(live.size()));
            var expected = new TreeSet<String>();
            for (var connection : nodes.wills.keySet()) {
                int holder = nodes.holderOfWill(connection);
                assertTrue(holder >= 0, () -> connection + "'s will is held nowhere");
                if (nodes.nodeOf(holder) == node) expected.add("will/" + connection);
            }
            assertEquals(nodes.wills.size(), nodes.keptWills(), () -> "the keepers hold the wills of " + nodes.wills);
            if (leaves) {
                assertEquals(List.of(), nodes.leave(node), "a node that leaves publishes its clients' wills itself");
                losses++;
                return;
            }
            var published = nodes.lose(node);
            assertEquals(expected, new TreeSet<>(published), "the wills held on the lost node " + node);
            assertEquals(expected.size(), published.size(), "each once");
            losses++;
        }

        void checkOnce() {
            var seen = new HashSet<String>();
            for (var topic : nodes.published) assertTrue(seen.add(topic), () -> topic + " published twice: " + nodes.published);
        }
    }
}
