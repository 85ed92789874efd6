package io.pekquitto.ops.fatal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.ops.ConfigLoader;
import io.pekquitto.shards.broker.Broker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every thread of the runnable broker's actor system has the halting handler in front of Pekko's: its
 * dispatchers', the shards', the scheduler's. Nothing here is fatal: the handler itself is
 * {@link FatalErrorHandlerTest}'s, and {@code FatalErrorIT} fills a real broker's heap.
 */
class HaltOnFatalErrorTest {
    private static final int SHARDS = 2;
    private static ActorTestKit testKit;

    /** The thread an actor or a task ran on, and the handler its errors would go to. */
    private record ThreadSeen(Thread thread, Thread.UncaughtExceptionHandler handler) {
        static ThreadSeen now() {
            var thread = Thread.currentThread();
            return new ThreadSeen(thread, thread.getUncaughtExceptionHandler());
        }
    }

    @BeforeAll
    static void startTheActorSystemAsTheRunnableBrokerConfiguresIt() {
        var config = Broker.dispatcherConfig(SHARDS).withFallback(ConfigLoader.actorSystemConfig());
        testKit = ActorTestKit.create("halting", HaltOnFatalError.actorSystemConfig(config, SHARDS));
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private static Behavior<ActorRef<ThreadSeen>> reporter() {
        return Behaviors.receiveMessage(replyTo -> {
            replyTo.tell(ThreadSeen.now());
            return Behaviors.same();
        });
    }

    private static ThreadSeen threadOf(String dispatcher) {
        var probe = testKit.<ThreadSeen>createTestProbe();
        testKit.spawn(reporter(), DispatcherSelector.fromConfig(dispatcher)).tell(probe.ref());
        return probe.receiveMessage();
    }

    @ParameterizedTest
    @ValueSource(strings = {"pekko.actor.default-dispatcher", "pekko.actor.internal-dispatcher",
            "pekko.actor.default-blocking-io-dispatcher", "pekko.io.pinned-dispatcher",
            "pekquitto-shard-dispatcher-0", "pekquitto-shard-dispatcher-1"})
    void eachDispatchersThreadsHaltOnAFatalErrorAndKeepPekkosNames(String dispatcher) {
        var seen = threadOf(dispatcher);

        assertInstanceOf(FatalErrorHandler.class, seen.handler());
        assertTrue(seen.thread().getName().startsWith("halting-" + dispatcher + "-"), seen.thread().getName());
    }

    @Test
    void eachDispatcherStillRunsOnItsOwnExecutor() {
        // Fork-join for Pekko's default dispatcher; one thread, always the same, for a shard.
        assertTrue(threadOf("pekko.actor.default-dispatcher").thread() instanceof ForkJoinWorkerThread);
        var shard = threadOf("pekquitto-shard-dispatcher-0").thread();
        assertEquals(shard, threadOf("pekquitto-shard-dispatcher-0").thread());
        assertTrue(!(shard instanceof ForkJoinWorkerThread), shard.getClass().getName());
    }

    @Test
    void theSchedulersThreadHaltsOnAFatalError() throws Exception {
        var seen = new CompletableFuture<ThreadSeen>();
        // Run on the scheduler's own thread, not handed to a dispatcher.
        testKit.system().scheduler().scheduleOnce(Duration.ofMillis(1), () -> seen.complete(ThreadSeen.now()),
                ExecutionContexts.fromExecutor(Runnable::run));

        var scheduler = seen.get(5, TimeUnit.SECONDS);
        assertInstanceOf(FatalErrorHandler.class, scheduler.handler());
        assertEquals("halting-scheduler-1", scheduler.thread().getName());
    }
}
