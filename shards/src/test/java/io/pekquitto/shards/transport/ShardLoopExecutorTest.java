package io.pekquitto.shards.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The executor a shard's dispatcher runs on: one event loop, whose thread outlives a task's fatal error. */
class ShardLoopExecutorTest {

    @Test
    void aFatalErrorGoesToTheThreadsHandlerAndTheLoopGoesOn() throws Exception {
        var handled = new CompletableFuture<Throwable>();
        var executor = ShardLoopConfigurator.loopExecutor(runnable -> {
            var thread = new Thread(runnable, "test-shard-loop");
            thread.setUncaughtExceptionHandler((t, failure) -> handled.complete(failure));
            return thread;
        }, 0);
        try {
            var first = new CompletableFuture<Thread>();
            executor.execute(() -> {
                first.complete(Thread.currentThread());
                throw new OutOfMemoryError("test: the heap is full");
            });
            assertInstanceOf(OutOfMemoryError.class, handled.get(5, TimeUnit.SECONDS), "the broker's handler halts the JVM on it");
            var next = new CompletableFuture<Thread>();
            executor.execute(() -> next.complete(Thread.currentThread()));
            assertSame(first.get(5, TimeUnit.SECONDS), next.get(5, TimeUnit.SECONDS), "the same thread runs the next task");
        } finally {
            executor.shutdown();
            assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
        }
        assertEquals(true, executor.isTerminated());
    }
}
