package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.SessionEffect.Attach;
import io.pekquitto.shards.session.SessionEffect.Refuse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The sessions of one shard against its memory budget: each session held counts its estimated cost and
 * what it holds; past the budget a CONNECT that would make a new persistent session is refused, while a
 * resumed session and a clean one still connect; a session that ends or moves away no longer counts.
 */
class SessionsMemoryTest {
    private static final long T0 = 5_000_000_000_000L;
    /** Half of it (which sessions may take) has room for three sessions' estimate and a little more. */
    private final MemoryBudget budget = new MemoryBudget(2 * (3 * MemoryBudget.SESSION_COST + 500), 0);
    private final Sessions<String> sessions = new Sessions<>(id -> new Session(id, 100, 0, false, budget),
            SessionJournal.NONE, budget, shard -> false, Long.MAX_VALUE);

    /** The effects of one call, transfers to this shard handled at once (one shard: it is every client's home). */
    private List<SessionEffect<String>> perform(List<SessionEffect<String>> effects) {
        var visible = new ArrayList<SessionEffect<String>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer) {
                visible.addAll(perform(sessions.receive(transfer.message(), T0)));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }

    private List<SessionEffect<String>> connect(String clientId, boolean cleanStart, long expiry) {
        return perform(sessions.connect(clientId, "connection-of-" + clientId, cleanStart, expiry));
    }

    private Session attached(List<SessionEffect<String>> effects) {
        return effects.stream().filter(Attach.class::isInstance).map(e -> ((Attach<String>) e).session()).findFirst()
                .orElseThrow(() -> new AssertionError("no Attach in " + effects));
    }

    private void disconnect(String clientId, Session session, long expiry) {
        perform(sessions.release("connection-of-" + clientId, clientId, session, expiry, Optional.empty(), T0));
    }

    @Test
    void pastTheBudgetANewPersistentSessionIsRefused() {
        for (int i = 0; i < 3; i++) disconnect("p" + i, attached(connect("p" + i, true, 3600)), 3600);
        assertEquals(3 * MemoryBudget.SESSION_COST, budget.used(), "three offline sessions");
        var effects = connect("p3", true, 3600);
        var refusal = (Refuse<String>) effects.stream().filter(Refuse.class::isInstance).findFirst()
                .orElseThrow(() -> new AssertionError("no Refuse in " + effects));
        assertEquals("connection-of-p3", refusal.connection());
        assertEquals(ReasonCode.QUOTA_EXCEEDED, refusal.reason());
        assertFalse(sessions.holds("p3"));
        assertEquals(1, budget.figures().sessionsRefused());
    }

    @Test
    void sessionsTakeHalfTheBudgetAtMostLeavingTheRestForMessages() {
        for (int i = 0; i < 3; i++) disconnect("p" + i, attached(connect("p" + i, true, 3600)), 3600);
        assertTrue(budget.hasRoomFor(MemoryBudget.SESSION_COST), "the budget itself has room");
        assertTrue(connect("p3", true, 3600).stream().anyMatch(Refuse.class::isInstance), "but not the sessions' half");
    }

    @Test
    void aRefusedClientCanConnectOnceThereIsRoomAgain() {
        for (int i = 0; i < 3; i++) disconnect("p" + i, attached(connect("p" + i, true, 3600)), 3600);
        connect("p3", true, 3600);
        disconnect("p0", attached(connect("p0", true, 0)), 0);  // Clean Start and expiry 0: p0's session ends
        attached(connect("p3", true, 3600));  // and the home, which heard the refused claim holds none, serves a new one
    }

    @Test
    void pastTheBudgetAResumedSessionAndACleanOneStillConnect() {
        for (int i = 0; i < 3; i++) disconnect("p" + i, attached(connect("p" + i, true, 3600)), 3600);
        budget.held(0, budget.limit() - budget.used());  // and payload: the budget is full
        assertTrue(attached(connect("p1", false, 3600)) != null, "its session is there: resumed");
        attached(connect("clean", true, 0));
        assertTrue(budget.used() > budget.limit(), "a clean session counts too, but is never refused");
    }

    @Test
    void aSessionThatEndsNoLongerCounts() {
        var session = attached(connect("c", true, 0));
        session.enqueue(Message.received("t", Binary.of(new byte[300]), QoS.AT_LEAST_ONCE, false, Properties.NONE, T0), false);
        assertEquals(MemoryBudget.SESSION_COST + 300 + MemoryBudget.MESSAGE_OVERHEAD, budget.used());
        disconnect("c", session, 0);  // expiry 0: it ends with the connection
        assertEquals(0, budget.used());
    }

    @Test
    void aSessionMovingToAnotherShardCountsThereAndNoLongerHere() {
        var budgets = List.of(new MemoryBudget(0, 0), new MemoryBudget(0, 0));
        var shards = new ArrayList<Sessions<String>>();
        for (int i = 0; i < 2; i++) {
            var shardBudget = budgets.get(i);
            var shard = new Sessions<String>(id -> new Session(id, 100, 0, false, shardBudget), SessionJournal.NONE, shardBudget,
                    other -> false, Long.MAX_VALUE);
            shard.joinMesh(i, 2);
            shards.add(shard);
        }
        var session = attached(across(shards, 0, shards.get(0).connect("mover", "first", true, 3600)));
        session.enqueue(Message.received("t", Binary.of(new byte[200]), QoS.AT_LEAST_ONCE, false, Properties.NONE, T0), false);
        across(shards, 0, shards.get(0).release("first", "mover", session, 3600, Optional.empty(), T0));
        assertEquals(MemoryBudget.SESSION_COST + 200 + MemoryBudget.MESSAGE_OVERHEAD, budgets.get(0).used());

        assertEquals(session, attached(across(shards, 1, shards.get(1).connect("mover", "second", false, 3600))));
        assertEquals(0, budgets.get(0).used(), "it left shard 0");
        assertEquals(MemoryBudget.SESSION_COST + 200 + MemoryBudget.MESSAGE_OVERHEAD, budgets.get(1).used(), "shard 1 holds it now");
    }

    /** Performs effects on {@code shard}, each transfer on the shard it is for, as the mesh would. */
    private static List<SessionEffect<String>> across(List<Sessions<String>> shards, int shard, List<SessionEffect<String>> effects) {
        var visible = new ArrayList<SessionEffect<String>>();
        for (var effect : effects) {
            if (effect instanceof SessionEffect.Transfer<String> transfer) {
                visible.addAll(across(shards, transfer.shard(), shards.get(transfer.shard()).receive(transfer.message(), T0)));
            } else {
                visible.add(effect);
            }
        }
        return visible;
    }
}
