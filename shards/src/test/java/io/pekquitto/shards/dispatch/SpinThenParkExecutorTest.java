package io.pekquitto.shards.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A shard's thread: one thread, tasks in order, parked when idle, woken by the next task. */
class SpinThenParkExecutorTest {
    private final AtomicReference<Thread> worker = new AtomicReference<>();
    private final SpinThenParkExecutor executor = new SpinThenParkExecutor(runnable -> {
        var thread = Executors.defaultThreadFactory().newThread(runnable);
        worker.set(thread);
        return thread;
    }, 100_000);

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdown();
        assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS), "terminated");
    }

    @Test
    void tasksFromManyThreadsRunOnOneThreadEachProducerInOrder() throws Exception {
        int producers = 4;
        int perProducer = 20_000;
        var seen = new ArrayList<List<Integer>>();
        for (int p = 0; p < producers; p++) seen.add(new ArrayList<>());
        var threads = new ArrayList<Thread>();
        var ranOn = new AtomicReference<Thread>();
        var done = new CountDownLatch(producers * perProducer);
        for (int p = 0; p < producers; p++) {
            int producer = p;
            threads.add(new Thread(() -> {
                for (int i = 0; i < perProducer; i++) {
                    int n = i;
                    executor.execute(() -> {
                        ranOn.compareAndSet(null, Thread.currentThread());
                        if (ranOn.get() != Thread.currentThread()) throw new AssertionError("a second thread");
                        seen.get(producer).add(n);  // only the worker writes: no lock needed
                        done.countDown();
                    });
                }
            }));
        }
        threads.forEach(Thread::start);
        assertTrue(done.await(20, TimeUnit.SECONDS), "every task ran");
        for (var list : seen) {
            assertEquals(perProducer, list.size());
            for (int i = 0; i < perProducer; i++) assertEquals(i, list.get(i));
        }
        assertEquals(worker.get(), ranOn.get());
    }

    @Test
    void anIdleWorkerParksAndTheNextTaskWakesIt() throws Exception {
        var first = new CountDownLatch(1);
        executor.execute(first::countDown);
        assertTrue(first.await(5, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (worker.get().getState() != Thread.State.WAITING) {  // parked: no CPU while idle
            assertTrue(System.nanoTime() < deadline, "the worker parks once idle: " + worker.get().getState());
            Thread.onSpinWait();
        }
        var second = new CountDownLatch(1);
        executor.execute(second::countDown);
        assertTrue(second.await(5, TimeUnit.SECONDS), "woken by the next task");
    }

    @Test
    void aShutDownExecutorRefusesTasksAndItsThreadEnds() throws Exception {
        executor.shutdown();
        assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> {}));
        assertTrue(executor.awaitTermination(5, TimeUnit.SECONDS));
        assertTrue(executor.isTerminated());
    }
}
