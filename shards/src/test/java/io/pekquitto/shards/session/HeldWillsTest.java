package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.SessionEffect.Transfer;
import io.pekquitto.shards.session.SessionTransfer.ForgetWill;
import io.pekquitto.shards.session.SessionTransfer.KeepWill;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * The holder's side of the wills across nodes (docs/cluster.md, Wills across nodes): which keeper a will goes to, and
 * what the keeper is told when. Three nodes of two shards, A (0, 1), B (2, 3) and C (4, 5), on one ring; the holder is
 * shard 1, of A.
 */
class HeldWillsTest {
    private static final int SELF = 1;
    private static final HomeRing ALL = new HomeRing(1, new int[] {0, 1, 2, 3, 4, 5});
    private static final IntPredicate NOT_A = shard -> shard >= 2;

    private final Effects<String> effects = new Effects<>();
    private final HeldWills<String> wills = new HeldWills<>(effects, NOT_A);
    private final DelayedWill will = new DelayedWill(
            Message.received("will/t", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0), 30);

    /** A client id whose home on {@code ring} is {@code home}. */
    private static String homedAt(HomeRing ring, int home) {
        for (int i = 0; ; i++) if (ring.homeOf("client-" + i) == home) return "client-" + i;
    }

    private List<Transfer<String>> sent() {
        return effects.take().stream().map(effect -> (Transfer<String>) effect).toList();
    }

    private Transfer<String> keep(int keeper, String clientId, long token) {
        return new Transfer<>(keeper, new KeepWill(clientId, SELF, token, will.message(), will.delaySeconds()));
    }

    private static Transfer<String> forget(int keeper, String clientId, long token) {
        return new Transfer<>(keeper, new ForgetWill(clientId, SELF, token));
    }

    @Test
    void theKeeperIsTheHomeWhenTheHomeIsOnAnotherNode() {
        assertEquals(3, HeldWills.keeperOf(ALL, homedAt(ALL, 3), NOT_A));
        assertEquals(4, HeldWills.keeperOf(ALL, homedAt(ALL, 4), NOT_A));
    }

    @Test
    void aHomeOnThisNodeMakesTheFirstShardAfterItOnAnotherNodeTheKeeper() {
        assertEquals(2, HeldWills.keeperOf(ALL, homedAt(ALL, 0), NOT_A));
        assertEquals(2, HeldWills.keeperOf(ALL, homedAt(ALL, 1), NOT_A));
        IntPredicate notC = shard -> shard < 4;  // a holder on C: after its shard 5 the ring goes round to A's 0
        assertEquals(0, HeldWills.keeperOf(ALL, homedAt(ALL, 5), notC));
    }

    @Test
    void aNodeAloneHasNoKeeperAndSendsNothing() {
        var alone = new HeldWills<String>(effects, shard -> false);
        alone.joinMesh(SELF, HomeRing.local(2));
        assertEquals(HeldWills.NONE, HeldWills.keeperOf(HomeRing.local(2), "client", shard -> false));
        alone.hold("client", 10, will);
        alone.hold("client", 20, will);
        alone.release("client");
        alone.ringChanged(HomeRing.local(2), Set.of());
        alone.keeperRestarted(0);
        assertTrue(effects.take().isEmpty(), "nothing changes for a broker of one node");
    }

    @Test
    void aClaimsWillIsToldOnceAndForgottenWhenItGoes() {
        wills.joinMesh(SELF, ALL);
        var client = homedAt(ALL, 3);
        wills.hold(client, 10, will);
        assertEquals(List.of(keep(3, client, 10)), sent());
        wills.hold(client, 10, will);  // the connection ended, its will waits out its delay: the same will
        assertTrue(sent().isEmpty(), "told once per claim");
        wills.hold(client, 10, null);  // published, or cancelled
        assertEquals(List.of(forget(3, client, 10)), sent());
        wills.release(client);
        assertTrue(sent().isEmpty(), "forgotten once");
    }

    @Test
    void aNewClaimsWillTakesThePlaceOfTheOldOneAtItsKeeper() {
        wills.joinMesh(SELF, ALL);
        var client = homedAt(ALL, 0);
        wills.hold(client, 10, will);
        wills.hold(client, 20, will);  // the client came back: the keeper replaces the holder's will of the client id
        assertEquals(List.of(keep(2, client, 10), keep(2, client, 20)), sent());
        wills.release(client);
        assertEquals(List.of(forget(2, client, 20)), sent());
    }

    @Test
    void aWillWhoseKeeperWasLostGoesToTheNextKeeperAndNothingToTheLostOne() {
        wills.joinMesh(SELF, ALL);
        var client = homedAt(ALL, 1);
        wills.hold(client, 10, will);
        assertEquals(List.of(keep(2, client, 10)), sent());
        wills.ringChanged(new HomeRing(2, new int[] {0, 1, 4, 5}), Set.of(2, 3));  // B is lost
        var keeper = HeldWills.keeperOf(new HomeRing(2, new int[] {0, 1, 4, 5}), client, NOT_A);
        assertTrue(keeper == 4 || keeper == 5, "on C");
        assertEquals(List.of(keep(keeper, client, 10)), sent());
    }

    @Test
    void aWillWhoseKeeperChangedWithTheRingMovesToTheNewKeeper() {
        var withoutB = new HomeRing(2, new int[] {0, 1, 4, 5});
        wills.joinMesh(SELF, withoutB);
        var client = homedAt(ALL, 3);  // B joins, and becomes its home
        wills.hold(client, 10, will);
        int before = HeldWills.keeperOf(withoutB, client, NOT_A);
        sent();
        wills.ringChanged(ALL, Set.of());
        assertEquals(List.of(forget(before, client, 10), keep(3, client, 10)), sent());
        wills.ringChanged(ALL, Set.of());
        assertTrue(sent().isEmpty(), "a keeper that stays is not told again");
    }

    @Test
    void aKeeperOfANewIncarnationOfItsNodeHearsAgain() {
        wills.joinMesh(SELF, ALL);
        var client = homedAt(ALL, 3);
        wills.hold(client, 10, will);
        sent();
        wills.ringChanged(ALL, Set.of(2, 3));  // B came back at the same address: its shards keep their ids
        assertEquals(List.of(keep(3, client, 10)), sent());
    }

    @Test
    void aRestartedKeeperHearsAgainOfTheWillsItKept() {
        wills.joinMesh(SELF, ALL);
        var onB = homedAt(ALL, 3);
        var onC = homedAt(ALL, 4);
        wills.hold(onB, 10, will);
        wills.hold(onC, 11, will);
        sent();
        wills.keeperRestarted(3);
        assertEquals(List.of(keep(3, onB, 10)), sent());
    }
}
