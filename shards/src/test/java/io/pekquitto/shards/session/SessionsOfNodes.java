package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * The shards of several nodes as the session rules see them (docs/cluster.md): shard {@code i} is on node
 * {@code i / perNode}, every shard on one ring, each a {@link Sessions} told which shards are on other nodes. Messages
 * between two shards keep their order and wait until {@link #settle} delivers them, in order or in any interleaving of
 * the pairs; connections end as a connection does (a will of no delay published by the connection itself, a delayed
 * one handed back with the session). A node is lost at once ({@link #lose}): its shards and what was on its way from or
 * to them are gone, and the others take up the ring without them. Every will published is recorded by its topic,
 * {@code will/<connection>}.
 */
final class SessionsOfNodes {
    static final long NOW = 1_000_000_000_000L;
    static final long NO_WILL = -1;

    enum State { WAITING, ATTACHED, CLOSED }

    /** Something a shard or a connection does later: a connection taken over releases its session, a barrier passes. */
    private record Chore(int shard, Runnable work) {}

    /** A step of a shard's ring change as it goes to another shard (the other messages are session transfers). */
    record Homes(long epoch, int round, List<Map.Entry<String, SessionTransfer.Successor>> holders) {}

    /** A timer a shard started for a client's session: its expiry, or its will's delay. */
    private record Timer(int shard, long generation) {}

    final int perNode;
    final int count;
    final List<Sessions<String>> shards = new ArrayList<>();
    final Set<Integer> lost = new TreeSet<>();
    /** The shards of nodes leaving, until they are gone. */
    final Set<Integer> leaving = new TreeSet<>();
    /** What happened to connections, in order: {@code takeover k}, {@code attach k}, {@code closed waiting k}. */
    final List<String> events = new ArrayList<>();
    /** Whether each connection was attached with its session present. */
    final Map<String, Boolean> sessionPresent = new HashMap<>();
    final Map<String, State> states = new HashMap<>();
    final Map<String, Integer> shardOf = new HashMap<>();
    final Map<String, String> clientOf = new HashMap<>();
    final Map<String, DelayedWill> willOf = new HashMap<>();
    final Map<String, Session> held = new HashMap<>();
    /**
     * The wills that must be known on two nodes, by connection: a connected client's (false), and one waiting out its
     * delay in its offline session (true) until a connection of its client id takes the session (resumed: cancelled;
     * Clean Start: published by its holder).
     */
    final Map<String, Boolean> wills = new HashMap<>();
    /** Every will published, by its topic, in order: by connections, by holders and by keepers. */
    final List<String> published = new ArrayList<>();
    /** Every session transfer sent from one shard to another, as {@code from -> to: message}. */
    final List<String> sent = new ArrayList<>();
    private final List<ArrayDeque<Object>> queues = new ArrayList<>();
    private final List<Chore> chores = new ArrayList<>();
    private final Map<String, Timer> expiryTimers = new HashMap<>();
    private final Map<String, Timer> willTimers = new HashMap<>();
    private long epoch = 1;
    private int connections;

    SessionsOfNodes(int nodes, int perNode) {
        this.perNode = perNode;
        this.count = nodes * perNode;
        for (int i = 0; i < count; i++) shards.add(newShard(i));
        for (int i = 0; i < count * count; i++) queues.add(new ArrayDeque<>());
    }

    private Sessions<String> newShard(int index) {
        int node = nodeOf(index);
        var sessions = new Sessions<String>(id -> new Session(id, 100, false), SessionJournal.NONE, MemoryBudget.NONE,
                shard -> nodeOf(shard) != node, Long.MAX_VALUE);
        sessions.joinMesh(index, ring(), false);
        return sessions;
    }

    /**
     * Shard {@code shard} is restarted by its supervisor: its state and its connections are lost (their wills with them,
     * as on a node alone), and every other shard hears its Hello.
     */
    void restart(int shard) {
        var restarted = newShard(shard);
        restarted.restarted();
        shards.set(shard, restarted);
        wills.keySet().removeIf(connection -> holderOfWill(connection) == shard);
        states.replaceAll((connection, state) -> shardOf.get(connection) == shard ? State.CLOSED : state);
        for (int other : ring().participants()) if (other != shard) perform(other, shards.get(other).peerRestarted(shard));
    }

    /** The client's will delay timer fires at {@code now}. */
    void willDelayExpired(String clientId, long now) {
        var timer = willTimers.remove(clientId);
        perform(timer.shard(), shards.get(timer.shard()).willDelayExpired(clientId, timer.generation(), now));
    }

    /** The client's session expiry timer fires at {@code now}. */
    void expiryCheck(String clientId, long now) {
        var timer = expiryTimers.remove(clientId);
        perform(timer.shard(), shards.get(timer.shard()).expiryCheck(clientId, timer.generation(), now));
    }

    int nodeOf(int shard) {
        return shard / perNode;
    }

    /** The live shards, in the order every node sees them; those of nodes leaving are home to none. */
    HomeRing ring() {
        var live = java.util.stream.IntStream.range(0, count).filter(s -> !lost.contains(s));
        if (leaving.isEmpty()) return new HomeRing(epoch, live.toArray());
        var all = live.toArray();
        return new HomeRing(epoch, java.util.Arrays.stream(all).filter(s -> !leaving.contains(s)).toArray(),
                java.util.Arrays.stream(all).filter(leaving::contains).toArray());
    }

    /**
     * Node {@code node} leaves (docs/cluster.md, A node leaving): every live shard takes up the ring where its shards are
     * home to none, then they hand their sessions on ({@link Sessions#evacuate}); what that sends waits for {@link #settle}.
     */
    void startLeaving(int node) {
        for (int shard = node * perNode; shard < (node + 1) * perNode; shard++) leaving.add(shard);
        epoch++;
        var ring = ring();
        for (int shard : ring.participants()) perform(shard, shards.get(shard).ringChanged(ring, Set.of(), Set.of(), NOW));
    }

    /** The leaving node's shards hand on what they hold (again, for what is still there). */
    void evacuate(int node) {
        for (int shard = node * perNode; shard < (node + 1) * perNode; shard++) perform(shard, shards.get(shard).evacuate());
    }

    /** Whether the node's shards hold no session that outlives its connection, nor wait for one. */
    boolean evacuated(int node) {
        for (int shard = node * perNode; shard < (node + 1) * perNode; shard++) if (!shards.get(shard).evacuated()) return false;
        return true;
    }

    static DelayedWill will(String connection, long delaySeconds) {
        var message = Message.received("will/" + connection, Binary.utf8(connection), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW);
        return new DelayedWill(message, delaySeconds);
    }

    // ---- what clients do

    /** A CONNECT on {@code shard}, with a will of that delay or none ({@link #NO_WILL}); returns the connection's name. */
    String connect(String clientId, int shard, boolean cleanStart, long willDelay) {
        var connection = "k" + ++connections;
        states.put(connection, State.WAITING);
        shardOf.put(connection, shard);
        clientOf.put(connection, clientId);
        if (willDelay != NO_WILL) willOf.put(connection, will(connection, willDelay));
        perform(shard, shards.get(shard).connect(clientId, connection, cleanStart, 60, Optional.ofNullable(willOf.get(connection))));
        return connection;
    }

    /** The attached connection of the client, or null. */
    String attachedOf(String clientId) {
        for (var entry : states.entrySet()) {
            if (entry.getValue() == State.ATTACHED && clientOf.get(entry.getKey()).equals(clientId)) return entry.getKey();
        }
        return null;
    }

    /** How a connection ends: DISCONNECT, a lost network connection, a failed connection actor. */
    enum Ending { DISCONNECT, DROP, FAIL }

    /** The client's attached connection, if any, ends so. */
    void end(String clientId, Ending how) {
        var connection = attachedOf(clientId);
        if (connection == null) return;
        switch (how) {
            case DISCONNECT -> disconnect(connection);
            case DROP -> drop(connection);
            case FAIL -> fail(connection);
        }
    }

    /** DISCONNECT 0x00: the will is discarded [MQTT-3.14.4-3]. */
    void disconnect(String connection) {
        states.put(connection, State.CLOSED);
        wills.remove(connection);
        release(connection, Optional.empty());
    }

    /** The network connection is lost: its will goes ([MQTT-3.1.2-8]), at once or after its delay. */
    void drop(String connection) {
        states.put(connection, State.CLOSED);
        end(connection);
    }

    /** The connection's actor failed: its session goes on without it, and no will. */
    void fail(String connection) {
        states.put(connection, State.CLOSED);
        wills.remove(connection);
        int shard = shardOf.get(connection);
        held.remove(connection);
        perform(shard, shards.get(shard).connectionStopped(connection, NOW));
    }

    /** The server shuts down (DISCONNECT 0x8B): the session outlives the connection, with no will. */
    private void shutDown(String connection) {
        wills.remove(connection);
        release(connection, Optional.empty());
    }

    private void end(String connection) {
        var will = willOf.get(connection);
        if (will != null && will.delaySeconds() == 0) published.add(will.message().topic());  // the connection routes it
        if (will != null && will.delaySeconds() > 0) wills.put(connection, true); else wills.remove(connection);
        release(connection, Optional.ofNullable(will).filter(w -> w.delaySeconds() > 0)
                .map(w -> PendingWill.delayed(w.message(), w.delaySeconds(), NOW)));
    }

    private void release(String connection, Optional<PendingWill> will) {
        int shard = shardOf.get(connection);
        perform(shard, shards.get(shard).release(connection, clientOf.get(connection), held.remove(connection), 60, will, NOW));
    }

    // ---- the mesh

    /** Delivers everything, pair by pair in order, until nothing is left to do. */
    void settle() {
        while (step(null)) {
            // again
        }
    }

    /** Does one thing left to do, picked by {@code random} (or the first, with null); false if nothing is. */
    boolean step(Random random) {
        var enabled = enabled();
        if (enabled.isEmpty()) return false;
        enabled.get(random == null ? 0 : random.nextInt(enabled.size())).run();
        return true;
    }

    boolean isQuiet() {
        return enabled().isEmpty();
    }

    private List<Runnable> enabled() {
        var enabled = new ArrayList<Runnable>();
        for (int q = 0; q < queues.size(); q++) {
            int from = q / count, to = q % count;
            if (!queues.get(q).isEmpty()) enabled.add(() -> deliver(from, to));
        }
        for (var chore : List.copyOf(chores)) {
            enabled.add(() -> {
                chores.remove(chore);
                chore.work().run();
            });
        }
        return enabled;
    }

    private void deliver(int from, int to) {
        perform(to, receive(shards.get(to), from, queues.get(from * count + to).poll()));
    }

    /** What {@code shard} does with a message shard {@code from} sent it: a session transfer, or {@link Homes}. */
    static List<SessionEffect<String>> receive(Sessions<String> shard, int from, Object message) {
        return message instanceof Homes homes
                ? shard.homes(from, homes.epoch(), homes.round(), homes.holders())
                : shard.receive((SessionTransfer) message, NOW);
    }

    /** The shard an effect sends a message to, or -1; and the message ({@link #message}). */
    static int destination(SessionEffect<String> effect) {
        if (effect instanceof SessionEffect.Transfer<String> transfer) return transfer.shard();
        return effect instanceof SessionEffect.Homes<String> homes ? homes.shard() : -1;
    }

    static Object message(SessionEffect<String> effect) {
        if (effect instanceof SessionEffect.Transfer<String> transfer) return transfer.message();
        var homes = (SessionEffect.Homes<String>) effect;
        return new Homes(homes.epoch(), homes.round(), homes.holders());
    }

    /**
     * Node {@code node} is lost (downed): its shards, their connections and what was on its way from or to them are gone, and
     * every other shard takes up the ring without them. Returns the wills published by that change (the keepers').
     */
    List<String> lose(int node) {
        return remove(node, false);
    }

    /** Node {@code node} leaves the cluster: as {@link #lose}, but it published its clients' wills itself as it stopped. */
    List<String> leave(int node) {
        return remove(node, true);
    }

    private List<String> remove(int node, boolean left) {
        var gone = new HashSet<Integer>();
        for (int shard = node * perNode; shard < (node + 1) * perNode; shard++) gone.add(shard);
        wills.keySet().removeIf(connection -> gone.contains(holderOfWill(connection)));  // published now, or lost
        lost.addAll(gone);
        leaving.removeAll(gone);
        epoch++;
        for (int q = 0; q < queues.size(); q++) {
            if (gone.contains(q / count) || gone.contains(q % count)) queues.get(q).clear();
        }
        chores.removeIf(chore -> gone.contains(chore.shard()));
        states.replaceAll((connection, state) -> gone.contains(shardOf.get(connection)) ? State.CLOSED : state);
        int before = published.size();
        var ring = ring();
        for (int shard : ring.participants()) perform(shard, shards.get(shard).ringChanged(ring, gone, left ? gone : Set.of(), NOW));
        return List.copyOf(published.subList(before, published.size()));
    }

    /** The wills the live shards keep for other nodes' clients. */
    int keptWills() {
        int kept = 0;
        for (int shard : ring().participants()) kept += shards.get(shard).keptWills();
        return kept;
    }

    /** The shard that holds the session of a will that must be known ({@link #wills}). */
    int holderOfWill(String connection) {
        return wills.get(connection) ? holderOf(clientOf.get(connection)) : shardOf.get(connection);
    }

    /** The live shard that holds the client's session, or -1. */
    int holderOf(String clientId) {
        var holders = new ArrayList<Integer>();
        for (int shard : ring().participants()) if (shards.get(shard).holds(clientId)) holders.add(shard);
        assertTrue(holders.size() <= 1, () -> clientId + " held by " + holders);
        return holders.isEmpty() ? -1 : holders.get(0);
    }

    private void perform(int shard, List<SessionEffect<String>> effects) {
        for (var effect : effects) {
            int to = destination(effect);
            if (to == shard) {
                perform(shard, receive(shards.get(shard), shard, message(effect)));
            } else if (to >= 0) {
                sent.add(shard + " -> " + to + ": " + message(effect));
                if (!lost.contains(to)) queues.get(shard * count + to).add(message(effect));
            } else if (effect instanceof SessionEffect.TakeOver<String> takeOver) {
                var connection = takeOver.connection();
                events.add((states.get(connection) == State.WAITING ? "closed waiting " : "takeover ") + connection);
                // Taken over before its CONNACK, a connection just closes; after it, it ends as a lost connection does,
                // or, on a node leaving, as the server shuts down: its session outlives it, its will is not published.
                if (states.put(connection, State.CLOSED) == State.ATTACHED) {
                    chores.add(new Chore(shard, leaving.contains(shard) ? () -> shutDown(connection) : () -> end(connection)));
                }
            } else if (effect instanceof SessionEffect.Attach<String> attach) {
                var connection = attach.connection();
                assertEquals(State.WAITING, states.get(connection), () -> connection + " attached twice");
                var other = attachedOf(clientOf.get(connection));
                assertEquals(null, other, "one connection per client id holds its session [MQTT-3.1.4-3]");
                states.put(connection, State.ATTACHED);
                events.add("attach " + connection);
                sessionPresent.put(connection, attach.sessionPresent());
                held.put(connection, attach.session());
                wills.keySet().removeIf(earlier -> clientOf.get(earlier).equals(clientOf.get(connection)));
                if (willOf.containsKey(connection)) wills.put(connection, false);
            } else if (effect instanceof SessionEffect.AwaitPeers<String> await) {
                chores.add(new Chore(shard, () -> perform(shard, shards.get(shard).peersApplied(await.clientId(), await.token()))));
            } else if (effect instanceof SessionEffect.StartExpiryTimer<String> timer) {
                expiryTimers.put(timer.clientId(), new Timer(shard, timer.generation()));
            } else if (effect instanceof SessionEffect.StartWillTimer<String> timer) {
                willTimers.put(timer.clientId(), new Timer(shard, timer.generation()));
            } else if (effect instanceof SessionEffect.PublishWill<String> will) {
                published.add(will.will().topic());
            }
        }
    }
}
