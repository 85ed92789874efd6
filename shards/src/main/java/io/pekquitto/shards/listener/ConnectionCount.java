package io.pekquitto.shards.listener;

import io.pekquitto.shards.settings.ListenerSettings;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One listener's open connections against its {@code max-connections}, and the connections it refused
 * for it. The listener takes a place as it accepts ({@link #tryOpen}) on its own thread (with
 * {@code reuse-port}, on the accepting shard's); whoever ends the connection gives it back
 * ({@link #closed}) on a shard's thread: hence atomics, and a compare-and-set so that two accepts
 * racing for the last place cannot both have it.
 */
public final class ConnectionCount {
    private final ListenerSettings settings;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    /** The count of a listener with these settings: {@code max-connections} is its limit. */
    public ConnectionCount(ListenerSettings settings) {
        this.settings = settings;
    }

    /**
     * Takes a place for a connection just accepted: true if it is to be served (and must call
     * {@link #closed} exactly once when it ends); false if the listener is full, and it is counted refused.
     */
    public boolean tryOpen() {
        while (true) {
            int now = open.get();
            if (settings.full(now)) {
                refused.incrementAndGet();
                return false;
            }
            if (open.compareAndSet(now, now + 1)) return true;
        }
    }

    /** A connection that {@link #tryOpen} let in has ended, whatever ended it: its place is free. */
    public void closed() {
        open.decrementAndGet();
    }

    /** Connections served now. */
    public int open() {
        return open.get();
    }

    /** Connections refused because the listener was full, since it started. */
    public long refused() {
        return refused.get();
    }
}
