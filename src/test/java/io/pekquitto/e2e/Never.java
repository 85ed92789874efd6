package io.pekquitto.e2e;

import java.time.Duration;

/**
 * Absence over a window: a condition that must not come true, polled with {@link Eventually}'s backoff for the
 * whole window (so that it fails as soon as it does, and checks once more at the window's end), never a bare sleep
 * followed by one look.
 */
public final class Never {
    private Never() {}

    /** Fails as soon as {@code happened} holds within {@code window}, naming {@code what} happened and when. */
    public static void within(Duration window, String what, Eventually.Condition happened) {
        long start = System.nanoTime();
        var pause = new Eventually.Backoff();
        while (true) {
            long watched = System.nanoTime() - start;
            if (Eventually.read(happened::holds, () -> "watching for " + what)) {
                throw new AssertionError(what + ", after " + Duration.ofNanos(watched).toMillis() + " ms of " + window);
            }
            if (watched >= window.toNanos()) return;
            pause.sleep(window.toNanos() - watched);
        }
    }
}
