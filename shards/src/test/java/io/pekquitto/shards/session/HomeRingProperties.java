package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * The homes of client ids while the ring changes (docs/cluster.md, Homes across nodes): the shards of two nodes,
 * each on a ring of its own node's shards, take up the ring of both at random moments while connections with one
 * client id come and go on any shard, and every message between two shards keeps its order but waits any time.
 * The second node is new: it orders no claim before it takes the ring up, as a node of a cluster starts. However
 * the steps interleave, at most one connection holds the session at any moment [MQTT-3.1.4-3], every CONNECT is
 * answered, and one shard holds the session at the end.
 */
class HomeRingProperties {
    private static final String CLIENT = "client";
    private static final long NOW = 1_000_000_000_000L;

    sealed interface Step {}

    record Connect(int shard, boolean cleanStart) implements Step {}

    record Disconnect() implements Step {}

    record Fail() implements Step {}

    @Provide
    Arbitrary<List<Step>> scripts() {
        Arbitrary<Step> connect = Arbitraries.integers().between(0, 5).flatMap(shard ->
                Arbitraries.of(true, false).map(clean -> new Connect(shard, clean)));
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(6, connect),
                Tuple.of(1, Arbitraries.just(new Disconnect())),
                Tuple.of(1, Arbitraries.just(new Fail())));
        return Combinators.combine(connect, step.list().ofMaxSize(25)).as((first, rest) -> {
            var script = new ArrayList<Step>();
            script.add(first);
            script.addAll(rest);
            return script;
        });
    }

    @Property(tries = 500)
    void aNodeJoiningAnotherLeavesOneConnectionWithTheSession(@ForAll @IntRange(min = 1, max = 3) int perNode,
                                                               @ForAll("scripts") List<Step> script, @ForAll Random random) {
        var nodes = new Nodes(perNode, random);
        nodes.run(script);
        nodes.assertQuiet();
    }

    /** Two nodes' shards, 0..n-1 the first node's, n..2n-1 the second's. */
    private static final class Nodes {
        enum State { WAITING, ATTACHED, CLOSED }

        final int count;
        final Random random;
        final HomeRing whole;
        final List<Sessions<String>> shards = new ArrayList<>();
        final List<ArrayDeque<Object>> queues = new ArrayList<>();
        final List<Integer> toAdopt = new ArrayList<>();
        final Map<String, State> states = new HashMap<>();
        final Map<String, Integer> shardOf = new HashMap<>();
        final Map<String, Session> held = new HashMap<>();
        final List<String> releases = new ArrayList<>();
        final List<Runnable> barriers = new ArrayList<>();
        int connections;

        Nodes(int perNode, Random random) {
            this.count = 2 * perNode;
            this.random = random;
            var all = new int[count];
            var first = new int[perNode];
            var second = new int[perNode];
            for (int i = 0; i < count; i++) all[i] = i;
            for (int i = 0; i < perNode; i++) {
                first[i] = i;
                second[i] = perNode + i;
            }
            whole = new HomeRing(3, all);
            for (int i = 0; i < count; i++) {
                var sessions = new Sessions<String>(id -> new Session(id, 100, false));
                boolean onSecond = i >= perNode;
                sessions.joinMesh(i, onSecond ? new HomeRing(2, second) : new HomeRing(1, first), onSecond);
                shards.add(sessions);
                toAdopt.add(i);
            }
            for (int i = 0; i < count * count; i++) queues.add(new ArrayDeque<>());
        }

        void run(List<Step> script) {
            int next = 0;
            for (int turns = 0; turns < 100_000; turns++) {
                var enabled = new ArrayList<BooleanSupplier>();
                if (next < script.size()) {
                    var step = script.get(next);
                    enabled.add(() -> { step(step); return true; });
                }
                for (int shard : toAdopt) enabled.add(() -> adopt(shard));
                for (int q = 0; q < queues.size(); q++) {
                    int from = q / count, to = q % count;
                    if (!queues.get(q).isEmpty()) enabled.add(() -> deliver(from, to));
                }
                for (var connection : releases) enabled.add(() -> release(connection));
                for (var barrier : barriers) enabled.add(() -> { barriers.remove(barrier); barrier.run(); return true; });
                if (enabled.isEmpty()) return;
                var chosen = enabled.get(random.nextInt(enabled.size()));
                if (next < script.size() && chosen == enabled.get(0)) next++;
                chosen.getAsBoolean();
            }
            throw new AssertionError("the protocol did not settle in 100,000 turns");
        }

        private boolean adopt(int shard) {
            toAdopt.remove(Integer.valueOf(shard));
            perform(shard, shards.get(shard).ringChanged(whole, java.util.Set.of(), NOW));
            return true;
        }

        private void step(Step step) {
            if (step instanceof Connect connect) {
                var connection = "c" + ++connections;
                int shard = connect.shard() % count;
                states.put(connection, State.WAITING);
                shardOf.put(connection, shard);
                perform(shard, shards.get(shard).connect(CLIENT, connection, connect.cleanStart(), 60));
            } else {
                var attached = attached();
                if (attached == null) return;
                int shard = shardOf.get(attached);
                states.put(attached, State.CLOSED);
                var session = held.remove(attached);
                perform(shard, step instanceof Fail
                        ? shards.get(shard).connectionStopped(attached, NOW)
                        : shards.get(shard).release(attached, CLIENT, session, 60, Optional.empty(), NOW));
            }
        }

        private boolean deliver(int from, int to) {
            perform(to, SessionsOfNodes.receive(shards.get(to), from, queues.get(from * count + to).poll()));
            return true;
        }

        private boolean release(String connection) {
            releases.remove(connection);
            int shard = shardOf.get(connection);
            perform(shard, shards.get(shard).release(connection, CLIENT, held.remove(connection), 60, Optional.empty(), NOW));
            return true;
        }

        private void perform(int shard, List<SessionEffect<String>> effects) {
            for (var effect : effects) {
                int to = SessionsOfNodes.destination(effect);
                if (to == shard) {
                    perform(shard, SessionsOfNodes.receive(shards.get(shard), shard, SessionsOfNodes.message(effect)));
                } else if (to >= 0) {
                    queues.get(shard * count + to).add(SessionsOfNodes.message(effect));
                } else if (effect instanceof SessionEffect.TakeOver<String> takeOver) {
                    var connection = takeOver.connection();
                    var state = states.get(connection);
                    assertTrue(state == State.WAITING || state == State.ATTACHED, () -> connection + " taken over when " + state);
                    if (state == State.ATTACHED) releases.add(connection);
                    states.put(connection, State.CLOSED);
                } else if (effect instanceof SessionEffect.Attach<String> attach) {
                    var connection = attach.connection();
                    assertEquals(State.WAITING, states.get(connection), () -> connection + " attached twice");
                    assertNull(attached(), "at most one connection holds the session at a time");
                    states.put(connection, State.ATTACHED);
                    held.put(connection, attach.session());
                } else if (effect instanceof SessionEffect.AwaitPeers<String> await) {
                    barriers.add(() -> perform(shard, shards.get(shard).peersApplied(await.clientId(), await.token())));
                }
            }
        }

        private String attached() {
            var attached = states.entrySet().stream().filter(e -> e.getValue() == State.ATTACHED).map(Map.Entry::getKey).toList();
            assertTrue(attached.size() <= 1, () -> "attached at once: " + attached);
            return attached.isEmpty() ? null : attached.get(0);
        }

        void assertQuiet() {
            assertTrue(states.values().stream().noneMatch(State.WAITING::equals), () -> "a CONNECT was never answered: " + states);
            var holders = new ArrayList<Integer>();
            for (int i = 0; i < count; i++) if (shards.get(i).holds(CLIENT)) holders.add(i);
            assertEquals(1, holders.size(), () -> "the session is held by exactly one shard: " + holders);
            var attached = attached();
            if (attached != null) assertEquals(holders.get(0), shardOf.get(attached), "held where its connection is");
        }
    }
}
