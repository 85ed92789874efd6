package io.pekquitto.shards.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.transport.ShardLoopConfigurator;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.Test;

/** The broker spawned in an embedder's actor system, whose configuration may know nothing of the shards. */
class ShardDispatchersTest {
    private static final BrokerSettings TWO_SHARDS = BrokerSettings.parse("shards = 2\nlisteners = [{host = \"127.0.0.1\", port = 0}]");

    private static void startBroker(ActorTestKit testKit) {
        var broker = testKit.spawn(Broker.create(TWO_SHARDS), "pekquitto");
        var bound = testKit.<BrokerCommand.Bound>createTestProbe();
        broker.tell(new BrokerCommand.GetBoundAddresses(bound.getRef()));
        assertTrue(bound.receiveMessage().failure().isEmpty(), "started");
    }

    @Test
    void theBrokerRegistersTheShardDispatchersTheSystemLacks() {
        var testKit = ActorTestKit.create();
        try {
            startBroker(testKit);
            var dispatchers = Adapter.toClassic(testKit.system()).dispatchers();
            var shard1 = dispatchers.lookup(Broker.dispatcherPath(1));
            assertEquals(Broker.dispatcherPath(1), shard1.id());
            assertEquals(64, shard1.throughput(), "as Broker.dispatcherConfig has it");
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void dispatchersTheEmbedderConfiguresAreKept() {
        var tuned = ConfigFactory.parseString(Broker.dispatcherPath(0) + " { type = Dispatcher, executor = \""
                + ShardLoopConfigurator.class.getName() + "\", throughput = 5 }").withFallback(ConfigFactory.load());
        var testKit = ActorTestKit.create(tuned);
        try {
            startBroker(testKit);
            var dispatchers = Adapter.toClassic(testKit.system()).dispatchers();
            assertEquals(5, dispatchers.lookup(Broker.dispatcherPath(0)).throughput());
            assertEquals(64, dispatchers.lookup(Broker.dispatcherPath(1)).throughput(), "the one it lacked");
        } finally {
            testKit.shutdownTestKit();
        }
    }

    @Test
    void aShardDispatcherThatIsNotOneEventLoopIsRefused() {
        // One thread of a pool would do for the actors, not for the sockets: they need the loop.
        var pool = ConfigFactory.parseString(Broker.dispatcherPath(1) + " { type = Dispatcher, executor = thread-pool-executor, "
                + "thread-pool-executor.fixed-pool-size = 1 }").withFallback(ConfigFactory.load());
        var testKit = ActorTestKit.create(pool);
        try {
            var refused = assertThrows(IllegalArgumentException.class, () -> ShardDispatchers.ensure(testKit.system(), 2));
            assertTrue(refused.getMessage().startsWith(Broker.dispatcherPath(1) + ".executor [thread-pool-executor]"), refused.getMessage());
        } finally {
            testKit.shutdownTestKit();
        }
    }
}
