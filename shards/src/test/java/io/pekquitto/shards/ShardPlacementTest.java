package io.pekquitto.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.shards.session.SessionDirectory;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class ShardPlacementTest {

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
}
