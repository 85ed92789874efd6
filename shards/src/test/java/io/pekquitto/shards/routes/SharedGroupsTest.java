package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedGroupsTest {
    private static final SubscriptionEntry ENTRY = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);
    private final SharedGroups groups = new SharedGroups();

    @Test
    void membersTakeTurnsAcrossShards() {  // 4.8.2: each message to one member
        groups.join("g", "jobs/#", new SharedGroups.Member("a", 0, ENTRY));
        groups.join("g", "jobs/#", new SharedGroups.Member("b", 1, ENTRY));
        var picked = new ArrayList<String>();
        for (int i = 0; i < 4; i++) groups.forEachMatch("jobs/1", group -> picked.add(group.next(null).clientId()));
        assertEquals(List.of("b", "a", "b", "a"), picked);
    }

    @Test
    void aBouncedMessageSkipsTheMemberItBouncedFrom() {
        groups.join("g", "t", new SharedGroups.Member("a", 0, ENTRY));
        groups.join("g", "t", new SharedGroups.Member("b", 0, ENTRY));
        var group = groups.get("g", "t");
        for (int i = 0; i < 3; i++) assertEquals("b", group.next("a").clientId());
    }

    @Test
    void theLastMemberLeavingRemovesTheGroup() {
        groups.join("g", "t", new SharedGroups.Member("a", 0, ENTRY));
        groups.leave("g", "t", "a");
        assertNull(groups.get("g", "t"));
    }

    @Test
    void aRestartedShardsMembersAreForgotten() {
        groups.join("g", "t", new SharedGroups.Member("a", 0, ENTRY));
        groups.join("g", "t", new SharedGroups.Member("b", 1, ENTRY));
        groups.forgetShard(1);
        assertEquals(List.of("a"), groups.get("g", "t").members().stream().map(SharedGroups.Member::clientId).toList());
        var onZero = new ArrayList<String>();
        groups.forEachMemberOn(0, (group, member) -> onZero.add(member.clientId()));
        assertEquals(List.of("a"), onZero);
    }

    // ---- how soon a member can take work (issue 24)

    private void members(String... clientIds) {
        for (var clientId : clientIds) groups.join("g", "t", new SharedGroups.Member(clientId, 0, ENTRY));
    }

    private List<String> picks(int count) {
        var group = groups.get("g", "t");
        var picked = new ArrayList<String>();
        for (int i = 0; i < count; i++) picked.add(group.next(null).clientId());
        return picked;
    }

    @Test
    void aMemberThatCannotTakeWorkIsSkippedWhileAnotherCan() {
        members("a", "b", "c");
        groups.availability("b", 0, Availability.BUSY);
        assertEquals(List.of("c", "a", "c", "a"), picks(4));
        groups.availability("b", 0, Availability.READY);
        assertEquals(List.of("b", "c", "a"), picks(3), "ready again: back in turn");
    }

    @Test
    void whenNoneIsReadyTheBusyMemberThatGotBetterLastTakesIt() {
        members("stuck", "reader");
        groups.availability("stuck", 0, Availability.BUSY);
        groups.availability("reader", 0, Availability.BUSY);
        groups.availability("reader", 0, Availability.READY);  // it drained half its window
        groups.availability("reader", 0, Availability.BUSY);
        assertEquals(List.of("reader", "reader", "reader"), picks(3), "the message waits where the queue moves");
    }

    @Test
    void aStalledMemberGetsNothingWhileAnotherIsBusy() {
        members("stuck", "reader");
        groups.availability("stuck", 0, Availability.STALLED);
        groups.availability("reader", 0, Availability.BUSY);
        assertEquals(List.of("reader", "reader"), picks(2));
    }

    @Test
    void whenEveryMemberIsStalledTheyTakeTurnsAsToday() {  // nothing dropped that round-robin would keep
        members("a", "b");
        groups.availability("a", 0, Availability.STALLED);
        groups.availability("b", 0, Availability.STALLED);
        assertEquals(List.of("b", "a", "b", "a"), picks(4));
        members("c");  // READY: it takes all
        assertEquals(List.of("c", "c"), picks(2));
    }

    @Test
    void busyMembersThatNeverGotBetterShareTheWork() {
        members("a", "b");
        groups.availability("a", 0, Availability.BUSY);
        groups.availability("b", 0, Availability.BUSY);
        var picked = picks(4);
        assertEquals(2, picked.stream().filter("a"::equals).count(), "fewest given first: " + picked);
    }

    @Test
    void aChangeAppliesToEveryGroupOfTheClient() {
        groups.join("g", "t", new SharedGroups.Member("a", 0, ENTRY));
        groups.join("h", "u/#", new SharedGroups.Member("a", 0, ENTRY));
        assertTrue(groups.availability("a", 0, Availability.BUSY));
        assertEquals(Availability.BUSY, groups.get("g", "t").member("a").availability());
        assertEquals(Availability.BUSY, groups.get("h", "u/#").member("a").availability());
        assertFalse(groups.availability("a", 0, Availability.BUSY), "no change, nothing to tell");
        assertFalse(groups.availability("nobody", 0, Availability.BUSY), "not a member");
    }

    @Test
    void onlyTheShardWhereTheMemberLivesIsBelieved() {  // a change from the shard it left is stale
        groups.join("g", "t", new SharedGroups.Member("a", 1, ENTRY));  // it moved to shard 1
        assertFalse(groups.availability("a", 0, Availability.STALLED), "shard 0's word on its release came late");
        assertEquals(Availability.READY, groups.get("g", "t").member("a").availability());
        assertTrue(groups.availability("a", 1, Availability.BUSY));
    }

    @Test
    void aMemberJoinsWithTheAvailabilityItsShardGivesAndKeepsNoneAfterLeaving() {
        groups.join("g", "t", new SharedGroups.Member("a", 0, ENTRY, Availability.STALLED));
        groups.join("g", "t", new SharedGroups.Member("b", 0, ENTRY));
        assertEquals(List.of("b", "b"), picks(2));
        groups.leave("g", "t", "a");
        assertFalse(groups.availability("a", 0, Availability.READY), "a member no more");
        groups.forgetShard(0);
        assertFalse(groups.availability("b", 0, Availability.BUSY), "forgotten with its restarted shard");
    }

    @Test
    void aMessageForABusierMemberFindsAMoreAvailableOne() {  // the member's shard redirects once
        members("a", "b", "c");
        groups.availability("a", 0, Availability.STALLED);
        groups.availability("b", 0, Availability.BUSY);
        var group = groups.get("g", "t");
        assertEquals("c", group.nextBetterThan(Availability.STALLED, "a").clientId());
        assertEquals("c", group.nextBetterThan(Availability.BUSY, "b").clientId());
        groups.availability("c", 0, Availability.STALLED);
        assertEquals("b", group.nextBetterThan(Availability.STALLED, "a").clientId(), "busy beats stalled");
        assertNull(group.nextBetterThan(Availability.BUSY, "b"), "no one is more available than busy");
        assertNull(group.nextBetterThan(Availability.READY, "x"));
    }
}
