package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
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
 * The claim protocol of {@link Sessions} over several shards, with every interleaving the mesh allows:
 * messages between two shards keep their order, nothing else is ordered (another pair's messages, a
 * connection's release after it was taken over, a barrier). Whatever the order, every CONNECT is
 * answered, at most one connection holds the session at any moment, and when all is quiet exactly one
 * shard holds it, with its subscriptions in that shard's index alone ([MQTT-3.1.4-3]).
 */
class SessionMigrationProperties {
    private static final String CLIENT = "client";
    private static final String FILTER = "a/b";
    private static final long NOW = 1_000_000_000_000L;

    sealed interface Step {}

    record Connect(int shard, boolean cleanStart) implements Step {}

    /** The connection holding the session, if any, disconnects normally. */
    record Disconnect() implements Step {}

    /** The connection holding the session, if any, fails (its actor stops without releasing). */
    record Fail() implements Step {}

    @Provide
    Arbitrary<List<Step>> resumingScripts() {
        Arbitrary<Step> connect = Arbitraries.integers().between(0, 3).map(shard -> new Connect(shard, false));
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(6, connect), Tuple.of(1, Arbitraries.just(new Disconnect())));
        return startingWithConnect(connect, step);
    }

    @Provide
    Arbitrary<List<Step>> anyScripts() {
        Arbitrary<Step> connect = Arbitraries.integers().between(0, 3).flatMap(shard ->
                Arbitraries.of(true, false).map(clean -> new Connect(shard, clean)));
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(6, connect),
                Tuple.of(1, Arbitraries.just(new Disconnect())),
                Tuple.of(1, Arbitraries.just(new Fail())));
        return startingWithConnect(connect, step);
    }

    private static Arbitrary<List<Step>> startingWithConnect(Arbitrary<Step> connect, Arbitrary<Step> step) {
        return Combinators.combine(connect, step.list().ofMaxSize(25)).as((first, rest) -> {
            var script = new ArrayList<Step>();
            script.add(first);
            script.addAll(rest);
            return script;
        });
    }

    @Property(tries = 300)
    void resumedSessionsSurviveAnyInterleaving(@ForAll @IntRange(min = 1, max = 4) int shards,
                                               @ForAll("resumingScripts") List<Step> script, @ForAll Random random) {
        var mesh = new Mesh(shards, random);
        mesh.run(script);
        mesh.assertQuiet();
        for (var session : mesh.attaches) assertSame(mesh.original, session, "the one session moves, nothing is lost");
        mesh.assertSubscriptionIndexedOnlyByItsHolder();
    }

    @Property(tries = 300)
    void cleanStartsAndFailuresLeaveOneSession(@ForAll @IntRange(min = 1, max = 4) int shards,
                                               @ForAll("anyScripts") List<Step> script, @ForAll Random random) {
        var mesh = new Mesh(shards, random);
        mesh.run(script);
        mesh.assertQuiet();
    }

    /** N shards' session rules and the connections on them, driven in a random order the mesh allows. */
    private static final class Mesh {
        enum State { WAITING, ATTACHED, CLOSED }

        final int shardCount;
        final Random random;
        final List<Sessions<String>> shards = new ArrayList<>();
        /** queues.get(from * n + to): the transfers in flight from one shard to another, in order. */
        final List<ArrayDeque<SessionTransfer>> queues = new ArrayList<>();
        final Map<String, State> states = new HashMap<>();
        final Map<String, Integer> shardOf = new HashMap<>();
        final Map<String, Session> held = new HashMap<>();
        /** Taken over while attached: the connection gives its session back, some time later. */
        final List<String> releases = new ArrayList<>();
        final List<Runnable> barriers = new ArrayList<>();
        final List<Set<String>> indexes = new ArrayList<>();
        final List<Session> attaches = new ArrayList<>();
        Session original;
        int connections;

        Mesh(int shardCount, Random random) {
            this.shardCount = shardCount;
            this.random = random;
            for (int i = 0; i < shardCount; i++) {
                var sessions = new Sessions<String>(id -> new Session(id, 100, false));
                sessions.joinMesh(i, shardCount);
                shards.add(sessions);
                indexes.add(new HashSet<>());
            }
            for (int i = 0; i < shardCount * shardCount; i++) queues.add(new ArrayDeque<>());
        }

        void run(List<Step> script) {
            int next = 0;
            for (int turns = 0; turns < 100_000; turns++) {
                var enabled = new ArrayList<BooleanSupplier>();
                if (next < script.size()) {
                    var step = script.get(next);
                    enabled.add(() -> { step(step); return true; });
                }
                for (int q = 0; q < queues.size(); q++) {
                    int from = q / shardCount, to = q % shardCount;
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

        private void step(Step step) {
            if (step instanceof Connect connect) {
                var connection = "c" + ++connections;
                int shard = connect.shard() % shardCount;
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
            var message = queues.get(from * shardCount + to).poll();
            perform(to, shards.get(to).receive(message, NOW));
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
                if (effect instanceof SessionEffect.Transfer<String> transfer) {
                    if (transfer.shard() == shard) {
                        perform(shard, shards.get(shard).receive(transfer.message(), NOW));  // same turn, as Shard does
                    } else {
                        queues.get(shard * shardCount + transfer.shard()).add(transfer.message());
                    }
                } else if (effect instanceof SessionEffect.TakeOver<String> takeOver) {
                    var connection = takeOver.connection();
                    var state = states.get(connection);
                    assertTrue(state == State.WAITING || state == State.ATTACHED, () -> connection + " taken over when " + state);
                    assertEquals(shard, shardOf.get(connection), "told by its own shard");
                    if (state == State.ATTACHED) releases.add(connection);
                    states.put(connection, State.CLOSED);
                } else if (effect instanceof SessionEffect.Attach<String> attach) {
                    var connection = attach.connection();
                    assertEquals(State.WAITING, states.get(connection), () -> connection + " attached twice");
                    assertEquals(null, attached(), "at most one connection holds the session at a time");
                    states.put(connection, State.ATTACHED);
                    held.put(connection, attach.session());
                    attaches.add(attach.session());
                    if (original == null) {
                        original = attach.session();
                        // The first connection subscribes, as the shard would on SUBSCRIBE.
                        shards.get(shard).subscriptionsOf(CLIENT).put(FILTER, new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0));
                        indexes.get(shard).add(FILTER);
                    }
                } else if (effect instanceof SessionEffect.AwaitPeers<String> await) {
                    barriers.add(() -> perform(shard, shards.get(shard).peersApplied(await.clientId(), await.token())));
                } else if (effect instanceof SessionEffect.Subscribe<String> subscribe) {
                    assertTrue(indexes.get(shard).add(subscribe.filter()), "indexed twice on shard " + shard);
                } else if (effect instanceof SessionEffect.Unsubscribe<String> unsubscribe) {
                    assertTrue(indexes.get(shard).remove(unsubscribe.filter()), "removed but not indexed on shard " + shard);
                }
            }
        }

        private String attached() {
            return states.entrySet().stream().filter(e -> e.getValue() == State.ATTACHED).map(Map.Entry::getKey)
                    .findFirst().orElse(null);
        }

        void assertQuiet() {
            assertTrue(states.values().stream().noneMatch(State.WAITING::equals), () -> "a CONNECT was never answered: " + states);
            var holders = new ArrayList<Integer>();
            for (int i = 0; i < shardCount; i++) if (shards.get(i).holds(CLIENT)) holders.add(i);
            assertEquals(1, holders.size(), () -> "the session is held by exactly one shard: " + holders);
            var attached = attached();
            if (attached != null) assertEquals(holders.get(0), shardOf.get(attached), "held where its connection is");
        }

        void assertSubscriptionIndexedOnlyByItsHolder() {
            for (int i = 0; i < shardCount; i++) {
                boolean holds = shards.get(i).holds(CLIENT);
                assertEquals(holds, indexes.get(i).contains(FILTER), "shard " + i + " indexes the filter iff it holds the session");
                if (holds) assertTrue(shards.get(i).subscriptionsOf(CLIENT).containsKey(FILTER));
            }
        }
    }
}
