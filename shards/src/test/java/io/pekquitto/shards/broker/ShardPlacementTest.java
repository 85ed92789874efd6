package io.pekquitto.shards.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.settings.Placement;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class ShardPlacementTest {
    private static final ActorTestKit testKit = ActorTestKit.create();

    @Test
    void anInProcessClientIsServedByItsClientIdsHomeAndCounted() {
        var connections = new AtomicIntegerArray(new int[] {0, 5, 0});
        int shard = ShardPlacement.forInProcessClient("thermostat", connections);
        assertEquals(SessionDirectory.homeOf("thermostat", 3), shard, "its claim settles without another shard");
        assertEquals(shard == 1 ? 6 : 1, connections.get(shard));
    }

    @Test
    void anInProcessClientWithoutAClientIdGoesToTheLeastLoadedShard() {
        var connections = new AtomicIntegerArray(new int[] {3, 1, 2});
        assertEquals(1, ShardPlacement.forInProcessClient("", connections));
        assertEquals(2, connections.get(1));
    }

    @Test
    void roundRobinTakesTheShardsInTurnAndCountsEach() {
        var connections = new AtomicIntegerArray(2);
        var placement = new ShardPlacement(Placement.ROUND_ROBIN, List.of(shard(), shard()), connections);
        assertEquals(List.of(0, 1, 0), List.of(placement.nextIndex(), placement.nextIndex(), placement.nextIndex()));
        assertEquals(2, connections.get(0));
        assertEquals(1, connections.get(1));
    }

    @Test
    void leastConnectionsTakesTheLeastLoadedShardAndCountsItAtOnce() {
        // Counted as it is chosen, so that a burst of accepts spreads before the shards hear of them.
        var connections = new AtomicIntegerArray(new int[] {2, 0, 1});
        var placement = new ShardPlacement(Placement.LEAST_CONNECTIONS, List.of(shard(), shard(), shard()), connections);
        assertEquals(List.of(1, 1, 2), List.of(placement.nextIndex(), placement.nextIndex(), placement.nextIndex()));
        assertEquals(2, connections.get(1));
        assertEquals(2, connections.get(2));
    }

    @Test
    void aShardThatAcceptedAConnectionItselfServesItAndCountsIt() {
        // reuse-port: the kernel placed it; the placement's own turn is left as it was.
        var connections = new AtomicIntegerArray(2);
        var shards = List.of(shard(), shard());
        var placement = new ShardPlacement(Placement.ROUND_ROBIN, shards, connections);
        assertEquals(shards.get(1), placement.acceptedBy(1));
        assertEquals(1, connections.get(1));
        assertEquals(0, placement.nextIndex());
    }

    private static ActorRef<ShardMessage> shard() {
        return testKit.<ShardMessage>createTestProbe().getRef();
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }
}
