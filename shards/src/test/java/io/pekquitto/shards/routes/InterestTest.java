package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InterestTest {
    private final Interest interest = new Interest();

    @Test
    void onlyTheFirstAndLastLocalSubscriberAreAnnounced() {
        assertTrue(interest.addLocal("a/+"));
        assertFalse(interest.addLocal("a/+"));
        assertFalse(interest.removeLocal("a/+"));
        assertTrue(interest.removeLocal("a/+"));
        assertFalse(interest.removeLocal("a/+"), "nothing left to remove");
    }

    @Test
    void remoteFiltersSelectTheShardsToForwardTo() {
        interest.addRemote("a/#", 1);
        interest.addRemote("b", 2);
        var into = new boolean[3];
        interest.remoteShardsFor("a/x", into);
        assertArrayEquals(new boolean[] {false, true, false}, into);
    }

    @Test
    void aRestartedShardsFiltersAreDropped() {
        interest.addRemote("a/#", 1);
        interest.addRemote("a/#", 2);
        interest.forgetShard(1);
        var into = new boolean[3];
        interest.remoteShardsFor("a/x", into);
        assertArrayEquals(new boolean[] {false, false, true}, into);
    }
}
