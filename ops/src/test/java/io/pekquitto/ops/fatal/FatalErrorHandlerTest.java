package io.pekquitto.ops.fatal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A fatal error halts with status 3 after one line naming it and its thread; any other goes to the thread's own handler. */
class FatalErrorHandlerTest {
    private final List<Integer> halts = new ArrayList<>();
    private final List<Throwable> passedOn = new ArrayList<>();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final FatalErrorHandler handler = new FatalErrorHandler(halts::add, err, (thread, error) -> passedOn.add(error));
    private final Thread shard = new Thread(() -> {}, "pekquitto-pekquitto-shard-dispatcher-0-6");

    private String written() {
        return err.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void anOutOfMemoryErrorHaltsWithStatus3AfterOneLineNamingItAndItsThread() {
        handler.uncaughtException(shard, new OutOfMemoryError("Java heap space"));

        assertEquals(List.of(3), halts);
        assertEquals("pekquitto: fatal error on thread [pekquitto-pekquitto-shard-dispatcher-0-6]: "
                + "java.lang.OutOfMemoryError: Java heap space; halting (exit status 3, no graceful shutdown)\n", written());
        assertTrue(passedOn.isEmpty(), "Pekko's handler, which would run the shutdown hooks, is not called");
    }

    @Test
    void everyVirtualMachineErrorIsFatal() {
        assertTrue(FatalErrorHandler.isFatal(new StackOverflowError()));
        assertTrue(FatalErrorHandler.isFatal(new InternalError("a JVM bug")));
        assertTrue(FatalErrorHandler.isFatal(new UnknownError()));

        handler.uncaughtException(shard, new StackOverflowError());

        assertEquals(List.of(3), halts);
        assertTrue(written().contains("]: java.lang.StackOverflowError; halting"), written());
    }

    @Test
    void anErrorCausedByAnOutOfMemoryErrorIsFatalAndTheLineNamesTheCause() {
        // As a CompletableFuture passes one on, or a class whose initialiser ran out of memory.
        var wrapped = new CompletionException(new ExceptionInInitializerError(new OutOfMemoryError("Metaspace")));

        handler.uncaughtException(shard, wrapped);

        assertEquals(List.of(3), halts);
        assertTrue(written().contains("]: java.lang.OutOfMemoryError: Metaspace; halting"), written());
    }

    @Test
    void aSecondFatalErrorMeanwhileWaitsForTheFirstsHaltSoThatOneLineIsWritten() throws Exception {
        // As the heap fills, Pekko IO's thread and a shard's may both run out of memory.
        var halting = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        var blockingHalt = new FatalErrorHandler(status -> {
            halts.add(status);
            halting.countDown();
            await(release);  // as Runtime.halt, which never returns
        }, err, (thread, error) -> passedOn.add(error));
        var first = new Thread(() -> blockingHalt.uncaughtException(shard, new OutOfMemoryError("Java heap space")));
        var second = new Thread(() -> blockingHalt.uncaughtException(shard, new OutOfMemoryError("Java heap space")));
        first.start();
        await(halting);

        second.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (var state = second.getState(); state != Thread.State.BLOCKED; state = second.getState()) {
            // Waiting on the latch, or gone: it wrote its line and reached its own halt. (The state is read once
            // per turn: read twice, it may turn BLOCKED between the loop's test and this one's.)
            assertTrue(state == Thread.State.NEW || state == Thread.State.RUNNABLE,
                    "the second thread did not wait for the first's halt: " + state + "; " + written());
            assertTrue(System.nanoTime() < deadline, "the second thread never got to the halt");
            Thread.onSpinWait();
        }
        assertEquals(1, written().lines().count(), written());
        release.countDown();
        first.join();
        second.join();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void otherErrorsGoToTheThreadsOwnHandlerAndNothingHalts() {
        var failures = List.of(new IllegalStateException("a bug"), new AssertionError("an assertion"),
                new NoClassDefFoundError("a missing class"));

        for (var failure : failures) handler.uncaughtException(shard, failure);

        assertEquals(failures, passedOn);
        assertTrue(halts.isEmpty());
        assertEquals("", written());
    }

    @Test
    void aLoopOfCausesEndsTheSearch() {
        var first = new IllegalStateException("first");
        var second = new IllegalStateException("second", first);
        first.initCause(second);

        assertFalse(FatalErrorHandler.isFatal(first));
    }

    @Test
    void aLongOrNonAsciiThreadNameIsCutButTheLineStillEnds() {
        var named = new Thread(() -> {}, "pekquitto-é-" + "x".repeat(1_000));

        handler.uncaughtException(named, new OutOfMemoryError("Java heap space"));

        var line = written();
        assertTrue(line.startsWith("pekquitto: fatal error on thread [pekquitto-?-xxx"), line);
        assertTrue(line.endsWith("xxx; halting (exit status 3, no graceful shutdown)\n"), line);
        assertEquals(512, line.length());
    }

    @Test
    void theHaltComesEvenWhenStderrCannotBeWritten() {
        var closed = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        var onClosedStderr = new FatalErrorHandler(halts::add, closed, (thread, error) -> passedOn.add(error));

        onClosedStderr.uncaughtException(shard, new OutOfMemoryError("Java heap space"));

        assertEquals(List.of(3), halts);
    }

    @Test
    void theHaltComesEvenWhenWritingTheLineFails() {
        // The heap may still be full as the line is written.
        var full = new OutputStream() {
            @Override
            public void write(int b) {
                throw new OutOfMemoryError("Java heap space");
            }
        };
        var onFullHeap = new FatalErrorHandler(halts::add, full, (thread, error) -> passedOn.add(error));

        assertThrows(OutOfMemoryError.class, () -> onFullHeap.uncaughtException(shard, new OutOfMemoryError("Java heap space")));
        assertEquals(List.of(3), halts);
    }

    @Test
    void withoutAHandlerOfItsOwnAThreadsErrorIsPrintedAsTheJvmPrintsIt() {
        var out = new ByteArrayOutputStream();
        var failure = new IllegalStateException("a bug");

        FatalErrorHandler.printing(new PrintStream(out, true, StandardCharsets.UTF_8)).uncaughtException(shard, failure);

        var printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.startsWith("Exception in thread \"pekquitto-pekquitto-shard-dispatcher-0-6\" "
                + "java.lang.IllegalStateException: a bug\n\tat "), printed);
    }
}
