package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * A node leaving its cluster hands its sessions on (docs/cluster.md, A node leaving): three nodes' shards
 * ({@link SessionsOfNodes}) while connections of three client ids come and go on any shard (normal DISCONNECT, lost
 * connection, failed connection, taken over), every message between two shards delayed any time but kept in order;
 * at some point node 0 starts leaving (its listeners closed: no connection starts on it after that) and its shards hand
 * their sessions on, again while any remain, as the shard does. At most one connection holds a client's session at any
 * moment (the harness checks each attach), a connection on another node loses its session only to another connection
 * of its client, node 0 ends up holding nothing, and once it has left every client that ever had a session resumes it
 * on another node. Fails if a hand-over takes a session from a connection that claimed it meanwhile, or if a session
 * of node 0 is lost.
 */
class LeavingNodeProperties {
    private static final List<String> CLIENTS = List.of("a", "b", "c");

    sealed interface Step {}

    record Connect(String clientId, int shard, boolean cleanStart) implements Step {}

    record End(String clientId, SessionsOfNodes.Ending how) implements Step {}

    /** Node 0 starts leaving (once). */
    record Leave() implements Step {}

    @Provide
    Arbitrary<List<Step>> scripts() {
        var client = Arbitraries.of(CLIENTS);
        Arbitrary<Step> connect = Combinators.combine(client, Arbitraries.integers().between(0, 5), Arbitraries.of(true, false))
                .as(Connect::new);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(6, connect),
                Tuple.of(5, Combinators.combine(client, Arbitraries.frequency(Tuple.of(2, SessionsOfNodes.Ending.DISCONNECT),
                        Tuple.of(2, SessionsOfNodes.Ending.DROP), Tuple.of(1, SessionsOfNodes.Ending.FAIL))).as(End::new)),
                Tuple.of(1, Arbitraries.just(new Leave())));
        return step.list().ofMinSize(2).ofMaxSize(30);
    }

    @Property(tries = 1000)
    void aLeavingNodeHandsEverySessionOnAndTakesNoneFromAConnection(@ForAll @IntRange(min = 1, max = 2) int perNode,
                                                                    @ForAll("scripts") List<Step> script, @ForAll Random random) {
        var nodes = new SessionsOfNodes(3, perNode);
        var hadSession = new TreeSet<String>();
        boolean leaving = false;
        for (var step : script) {
            while (random.nextInt(3) > 0 && nodes.step(random)) {
                // some of what is on its way is delivered before the step
            }
            if (step instanceof Leave) {
                if (!leaving) start(nodes);
                leaving = true;
            } else if (step instanceof Connect c) {
                var homes = nodes.ring().shards();  // a node leaving takes no connection
                nodes.connect(c.clientId(), homes[c.shard() % homes.length], c.cleanStart(), SessionsOfNodes.NO_WILL);
            } else {
                var end = (End) step;
                nodes.end(end.clientId(), end.how());
            }
            for (var entry : nodes.states.entrySet()) {
                if (entry.getValue() != SessionsOfNodes.State.WAITING) hadSession.add(nodes.clientOf.get(entry.getKey()));
            }
        }
        if (!leaving) start(nodes);
        for (int round = 0; round < 100 && !(nodes.isQuiet() && nodes.evacuated(0)); round++) {
            while (nodes.step(random)) {
                // again
            }
            if (!nodes.evacuated(0)) nodes.evacuate(0);  // what is still there is handed again, as ShardEvacuation does
        }
        assertTrue(nodes.evacuated(0), "node 0 holds nothing that outlives its connection");
        checkTakeovers(nodes);
        for (var clientId : CLIENTS) {
            int holder = nodes.holderOf(clientId);
            assertTrue(holder < 0 || nodes.nodeOf(holder) != 0, () -> clientId + " still held on node 0");
        }
        nodes.leave(0);
        nodes.settle();
        for (var clientId : hadSession) {
            var back = nodes.connect(clientId, 2 * perNode, false, SessionsOfNodes.NO_WILL);
            nodes.settle();
            assertEquals(SessionsOfNodes.State.ATTACHED, nodes.states.get(back), clientId);
            assertTrue(nodes.sessionPresent.get(back), () -> clientId + "'s session was lost");
        }
    }

    /**
     * Off node 0, only another connection of the client takes a session from its connection [MQTT-3.1.4-3]: after each
     * takeover there, another connection of the client gets the session, or is itself taken over before it had it.
     */
    private static void checkTakeovers(SessionsOfNodes nodes) {
        var events = nodes.events;
        for (int i = 0; i < events.size(); i++) {
            if (!events.get(i).startsWith("takeover ")) continue;
            var connection = events.get(i).substring("takeover ".length());
            if (nodes.nodeOf(nodes.shardOf.get(connection)) == 0) continue;
            var clientId = nodes.clientOf.get(connection);
            boolean byAnother = events.subList(i + 1, events.size()).stream().anyMatch(later -> !later.startsWith("takeover ")
                    && nodes.clientOf.get(later.substring(later.lastIndexOf(' ') + 1)).equals(clientId));
            assertTrue(byAnother, () -> connection + " taken over by a hand-over: " + events);
        }
    }

    private static void start(SessionsOfNodes nodes) {
        nodes.startLeaving(0);
        nodes.evacuate(0);
    }
}
