package io.pekquitto.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.cluster.ClusterMember.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The members as the events tell them, a line for each change, and the $SYS figures. */
class MemberListTest {
    private final MemberList members = new MemberList("127.0.0.1:25521");
    private final ClusterFigures figures = new ClusterFigures();

    @Test
    void nodesThatJoinAndComeUpAreCounted() {
        assertEquals("Cluster: node 127.0.0.1:25521 (this node) is joining: 0 up of 1 members", members.joining("127.0.0.1:25521"));
        assertEquals("Cluster: node 127.0.0.1:25521 (this node) is up: 1 up of 1 members", members.up("127.0.0.1:25521"));
        members.joining("127.0.0.1:25522");
        members.weaklyUp("127.0.0.1:25523");
        assertEquals("Cluster: node 127.0.0.1:25522 is up: 2 up of 3 members", members.up("127.0.0.1:25522"));
        assertEquals("Cluster: node 127.0.0.1:25523 is up: 3 up of 3 members", members.up("127.0.0.1:25523"));
        assertEquals(List.of(new ClusterMember("127.0.0.1:25521", Status.UP, true, true),
                new ClusterMember("127.0.0.1:25522", Status.UP, true, false),
                new ClusterMember("127.0.0.1:25523", Status.UP, true, false)), members.members());
    }

    @Test
    void aLostNodeIsUnreachableThenDownedThenRemoved() {
        for (var node : List.of("127.0.0.1:25521", "127.0.0.1:25522", "127.0.0.1:25523")) members.up(node);

        assertEquals("Cluster: node 127.0.0.1:25523 is unreachable: 3 up of 3 members, 1 unreachable",
                members.unreachable("127.0.0.1:25523"));
        assertEquals("Cluster: node 127.0.0.1:25523 was downed: 2 up of 3 members, 1 unreachable", members.downed("127.0.0.1:25523"));
        assertEquals(new ClusterMember("127.0.0.1:25523", Status.DOWN, false, false), members.members().get(2));
        assertEquals("Cluster: node 127.0.0.1:25523 was removed: 2 up of 2 members", members.removed("127.0.0.1:25523"));
        assertEquals(2, members.members().size());
    }

    @Test
    void aNodeThatLeavesGoesThroughLeavingAndExiting() {
        members.up("127.0.0.1:25521");
        members.up("127.0.0.1:25522");
        assertEquals("Cluster: node 127.0.0.1:25522 is leaving: 1 up of 2 members", members.leaving("127.0.0.1:25522"));
        assertEquals("Cluster: node 127.0.0.1:25522 is exiting: 1 up of 2 members", members.exiting("127.0.0.1:25522"));
        assertEquals("Cluster: node 127.0.0.1:25522 was removed: 1 up of 1 members", members.removed("127.0.0.1:25522"));
    }

    @Test
    void aNodeReachableAgainCountsAsBefore() {
        members.up("127.0.0.1:25522");
        members.unreachable("127.0.0.1:25522");
        assertEquals("Cluster: node 127.0.0.1:25522 is reachable again: 1 up of 1 members", members.reachable("127.0.0.1:25522"));
    }

    @Test
    void theFiguresAreWhatSysPublishes() {
        assertEquals(Map.of(), figures.topics(), "none before the membership actor starts");
        members.up("127.0.0.1:25521");
        members.up("127.0.0.1:25522");
        members.joining("127.0.0.1:25523");
        members.unreachable("127.0.0.1:25522");
        figures.update(members);
        assertEquals(Map.of("cluster/nodes", "2", "cluster/members", "3", "cluster/unreachable", "1"), figures.topics());
        assertEquals(List.of("cluster/nodes", "cluster/members", "cluster/unreachable"), List.copyOf(figures.topics().keySet()));
    }
}
