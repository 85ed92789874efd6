package io.pekquitto.shards.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoEventLoop;
import io.pekquitto.shards.transport.ShardLoopConfigurator;
import io.pekquitto.shards.transport.ShardLoops;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Every shard runs on a dispatcher of its own, one thread that is a Netty event loop. */
class ShardDispatcherTest {
    private static final ActorTestKit testKit = ActorTestKit.create(Broker.dispatcherConfig(2)
            .withFallback(com.typesafe.config.ConfigFactory.load()));

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private record Seen(Thread thread, IoEventLoop loop) {}

    private static Behavior<ActorRef<Seen>> reporter() {
        return Behaviors.receiveMessage(replyTo -> {
            replyTo.tell(new Seen(Thread.currentThread(), ShardLoops.current()));
            return Behaviors.same();
        });
    }

    private static Seen seenOn(String dispatcher) {
        var probe = testKit.<Seen>createTestProbe();
        testKit.spawn(reporter(), DispatcherSelector.fromConfig(dispatcher)).tell(probe.ref());
        return probe.receiveMessage();
    }

    @Test
    void shardsSpinBeforeTheySleepOnlyWhenEachHasASecondProcessor() {
        assertEquals(Broker.SPIN, Broker.spinFor(1, 2), "shards = auto on 2 cores");
        assertEquals(Broker.SPIN, Broker.spinFor(4, 8));
        assertEquals(java.time.Duration.ZERO, Broker.spinFor(2, 2), "two shards on 2 cores: spinning takes another thread's time");
        assertEquals(java.time.Duration.ZERO, Broker.spinFor(1, 1));
    }

    @Test
    void everyShardGetsItsOwnOneThreadDispatcher() {
        var config = Broker.dispatcherConfig(3);
        for (int i = 0; i < 3; i++) {
            var dispatcher = config.getConfig(Broker.dispatcherPath(i));
            assertEquals(ShardLoopConfigurator.class.getName(), dispatcher.getString("executor"));
            assertEquals(64, dispatcher.getInt("throughput"));
        }
    }

    @Test
    void aShardsActorsRunOnItsEventLoopAlwaysOnTheSameThread() {
        var first = seenOn(Broker.dispatcherPath(0));
        var again = seenOn(Broker.dispatcherPath(0));
        var other = seenOn(Broker.dispatcherPath(1));

        assertSame(first.thread(), again.thread());
        assertSame(first.loop(), again.loop());
        assertTrue(first.loop().inEventLoop(first.thread()));
        assertTrue(first.thread() != other.thread() && first.loop() != other.loop(), "each shard its own loop");
    }

    @Test
    void aThreadThatIsNoLoopsIsRefused() {
        var failure = assertThrows(IllegalStateException.class, ShardLoops::current);
        assertTrue(failure.getMessage().contains(ShardLoopConfigurator.class.getName()), failure.getMessage());
    }
}
