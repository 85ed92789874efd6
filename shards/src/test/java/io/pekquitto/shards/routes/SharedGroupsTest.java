package io.pekquitto.shards.routes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
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
}
