package io.pekquitto.shards.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the broker's store can write, for every shard and connection (README, "When the disk fills").
 * A failed write makes it failing: that write and the ones after it wait in their shards, unwritten and
 * unacknowledged, QoS 1/2 PUBLISHes and persistent sessions are refused, and {@link StoreRecovery} tries
 * to make the store writable again; once it is, the shards write what waits and the store is ok again.
 * The failure is logged once, with the store's path and the cause, then at most once a minute.
 * Thread-safe: the shards, their writer threads and the recovery's thread tell it what they see.
 */
public final class StoreHealth {
    private static final Logger LOG = LoggerFactory.getLogger(StoreHealth.class);
    /** At most one line a minute about a failure that lasts (or comes back). */
    static final Duration LOG_INTERVAL = Duration.ofMinutes(1);

    private final String store;
    private final LongSupplier clock;
    private volatile boolean failing;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final List<Runnable> onFailing = new CopyOnWriteArrayList<>();
    private final List<Runnable> onRecovered = new CopyOnWriteArrayList<>();
    /** Guarded by this: when the failure began, when a failure was last logged, whether this one was. */
    private long failingSince;
    private long lastLogged;
    private boolean everLogged;
    private boolean thisFailureLogged;

    /**
     * @param store how the log names the store: {@code store /var/lib/pekquitto}
     * @param clock nanoseconds, for the log's rate and the failure's length
     */
    public StoreHealth(String store, LongSupplier clock) {
        this.store = store;
        this.clock = clock;
    }

    /** The health of a broker without a store: it never fails. */
    public static StoreHealth none() {
        return new StoreHealth("no store", System::nanoTime);
    }

    /** Whether writes fail now: QoS 1/2 PUBLISHes and persistent sessions are refused. */
    public boolean isFailing() {
        return failing;
    }

    /** How many times the store has started failing since the broker started. */
    public long failures() {
        return failures.get();
    }

    /** A write failed (any thread): the store is failing, if it was not already. */
    public void failed(StoreException cause) {
        boolean started;
        synchronized (this) {
            long now = clock.getAsLong();
            started = !failing;
            if (started) {
                failing = true;
                failures.incrementAndGet();
                failingSince = now;
                thisFailureLogged = false;
            }
            if (!everLogged || now - lastLogged >= LOG_INTERVAL.toNanos()) {
                lastLogged = now;
                everLogged = true;
                thisFailureLogged = true;
                LOG.error("{} cannot write, so QoS 1 and 2 PUBLISHes and persistent sessions are refused until it can"
                        + " (what waits to be written is kept, and written then): {}", store, cause.getMessage());
            }
        }
        if (started) onFailing.forEach(Runnable::run);
    }

    /** The store is writable again (the recovery's thread); the shards are told to write what waits. */
    public void recovered() {
        synchronized (this) {
            if (!failing) return;
            failing = false;
            // Told only for a failure that was: one failing again and again within a minute is told once.
            if (thisFailureLogged) {
                LOG.warn("{} writes again, after {} ms of failing", store, (clock.getAsLong() - failingSince) / 1_000_000);
            }
        }
        onRecovered.forEach(Runnable::run);
    }

    /** A PUBLISH or a CONNECT refused because the store cannot write. */
    public void refused() {
        refused.incrementAndGet();
    }

    /** PUBLISHes and CONNECTs refused because the store could not write, since the broker started. */
    public long refusedCount() {
        return refused.get();
    }

    /** {@code listener} runs (on the failing thread) each time the store starts failing. */
    public void onFailing(Runnable listener) {
        onFailing.add(listener);
    }

    /** {@code listener} runs (on the recovery's thread) each time the store writes again. */
    public void onRecovered(Runnable listener) {
        onRecovered.add(listener);
    }
}
