package io.pekquitto.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A shard's thread spins before parking only while each shard has a second processor. */
class ShardDispatcherTest {

    @Test
    void shardsSpinWhenEachHasASecondProcessor() {
        assertEquals(Broker.SPIN, Broker.spinFor(1, 2), "shards = auto on 2 cores");
        assertEquals(Broker.SPIN, Broker.spinFor(4, 8));
        assertEquals(Duration.ZERO, Broker.spinFor(2, 2), "two shards on 2 cores: spinning takes another thread's time");
        assertEquals(Duration.ZERO, Broker.spinFor(1, 1));
    }

    @Test
    void everyShardGetsItsOwnOneThreadDispatcher() {
        var config = Broker.dispatcherConfig(3);
        for (int i = 0; i < 3; i++) {
            var dispatcher = config.getConfig(Broker.dispatcherPath(i));
            assertEquals("io.pekquitto.shards.dispatch.SpinThenParkExecutorConfigurator", dispatcher.getString("executor"));
            assertEquals(64, dispatcher.getInt("throughput"));
        }
    }
}
