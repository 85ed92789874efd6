package io.pekquitto.shards.store;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Makes a failing store write again, on a thread of its own: each time the {@link StoreHealth} starts
 * failing, it asks the store to {@link Store#recover()} (RocksDB: reopened once its filesystem has room),
 * after {@link #FIRST_TRY}, then after twice as long each time up to {@link #LAST_TRY_EVERY}, so the
 * broker is normal again within seconds of the disk having room, and without a restart. When the store
 * writes again the health says so, and the shards write what they kept.
 */
public final class StoreRecovery implements AutoCloseable {
    static final Duration FIRST_TRY = Duration.ofMillis(100);
    static final Duration LAST_TRY_EVERY = Duration.ofSeconds(2);

    private final Store store;
    private final StoreHealth health;
    private final ScheduledExecutorService thread;
    /** Used on the recovery's thread only, but for the first try, which happens-before the thread runs it. */
    private Duration nextDelay = FIRST_TRY;

    public StoreRecovery(Store store, StoreHealth health) {
        this.store = store;
        this.health = health;
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            var recovery = new Thread(task, "pekquitto-store-recovery");
            recovery.setDaemon(true);
            return recovery;
        });
        health.onFailing(() -> thread.execute(this::startTrying));
    }

    private void startTrying() {
        nextDelay = FIRST_TRY;
        schedule();
    }

    private void schedule() {
        if (!thread.isShutdown()) thread.schedule(this::tryOnce, nextDelay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tryOnce() {
        if (!health.isFailing()) return;
        try {
            store.recover();
        } catch (RuntimeException e) {  // the thread must go on trying
            var doubled = nextDelay.multipliedBy(2);
            nextDelay = doubled.compareTo(LAST_TRY_EVERY) > 0 ? LAST_TRY_EVERY : doubled;
            health.failed(e instanceof StoreException failure ? failure : new StoreException(e.toString(), e));
            schedule();
            return;
        }
        health.recovered();
    }

    /** Stops trying (the broker stops, after its shards, which wrote what they could). */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
