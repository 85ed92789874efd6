package io.pekquitto.e2e;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting for a condition to come true, by polling with a short backoff, failing with what was awaited once the
 * bound has passed; its counterpart for absence is {@link Never}. Polls only: no expiry is timed by its pauses.
 * A condition may read a socket or an inbox: what it throws fails the wait, with what was awaited.
 */
public final class Eventually {
    /** The longest pause between two polls: short against every bound the tests wait with. */
    private static final long MAX_PAUSE_NANOS = Duration.ofMillis(50).toNanos();

    /** A condition polled; it may throw (a read that fails, an interrupted wait). */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A value read at each poll. */
    @FunctionalInterface
    public interface Reading<T> {
        T read() throws Exception;
    }

    private Eventually() {}

    /** Waits until {@code condition} holds; fails after {@code timeout}, naming {@code what} it waited for. */
    public static void await(Duration timeout, String what, Condition condition) {
        await(timeout, () -> what, condition);
    }

    /** As {@link #await(Duration, String, Condition)}, {@code what} read at the failure (to say what was seen). */
    public static void await(Duration timeout, Supplier<String> what, Condition condition) {
        poll(timeout, what, condition::holds, Boolean::booleanValue);
    }

    /** Waits until {@code done} accepts the {@code value} read; returns that value, or fails naming the last one read. */
    public static <T> T await(Duration timeout, String what, Reading<T> value, Predicate<? super T> done) {
        var last = new Object() { T seen; };
        return poll(timeout, () -> what + "; last " + last.seen, () -> last.seen = value.read(), done);
    }

    /** As {@link #await(Duration, String, Reading, Predicate)}, {@code what} read at the failure, saying all it wants said. */
    public static <T> T await(Duration timeout, Supplier<String> what, Reading<T> value, Predicate<? super T> done) {
        return poll(timeout, what, value, done);
    }

    private static <T> T poll(Duration timeout, Supplier<String> what, Reading<T> value, Predicate<? super T> done) {
        long start = System.nanoTime();
        var pause = new Backoff();
        while (true) {
            T seen = read(value, () -> "waiting for " + what.get());
            if (done.test(seen)) return seen;
            long waited = System.nanoTime() - start;
            if (waited > timeout.toNanos()) throw new AssertionError("waited " + timeout + " for " + what.get());
            pause.sleep(timeout.toNanos() - waited);
        }
    }

    /** A reading; a checked exception it throws fails the test, saying what the test was {@code doing}. */
    static <T> T read(Reading<T> value, Supplier<String> doing) {
        try {
            return value.read();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while " + doing.get(), e);
        } catch (Exception e) {
            throw new AssertionError(e + " while " + doing.get(), e);
        }
    }

    /** Pauses of 1 ms, doubling up to {@link #MAX_PAUSE_NANOS}, never past what is left of the bound. */
    static final class Backoff {
        private long nanos = Duration.ofMillis(1).toNanos();

        void sleep(long leftNanos) {
            long pause = Math.max(0, Math.min(nanos, leftNanos));
            nanos = Math.min(nanos * 2, MAX_PAUSE_NANOS);
            try {
                Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while polling", e);
            }
        }
    }
}
