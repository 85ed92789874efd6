package io.pekquitto.shards.store;

import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The thread that syncs the store's log behind one shard ({@code durability = fsync}): the shard writes
 * each turn's batch itself, which is quick (the log goes to the operating system), hands over its
 * number and goes on; this thread syncs the log and tells the shard the number of the last batch
 * synced ({@code synced}, called on this thread). Batches written while a sync is in progress are
 * synced together by the next one: the slower the disk, the larger the group commit, and the shard's
 * thread never waits for it. Reads see a batch as soon as it is written, synced or not.
 */
final class LogSyncer implements AutoCloseable {
    private final Store store;
    private final LongConsumer synced;
    private final Consumer<StoreException> failed;
    private final Thread thread;
    private final Object lock = new Object();
    /** Guarded by {@code lock}: the last batch written, and the last one synced. */
    private long writtenUpTo;
    private long syncedUpTo;
    private boolean closed;

    /**
     * @param synced told the number of the last batch synced, after each sync
     * @param failed told why a sync failed; the syncer stops, and nothing after it counts as synced
     */
    LogSyncer(Store store, String name, LongConsumer synced, Consumer<StoreException> failed) {
        this.store = store;
        this.synced = synced;
        this.failed = failed;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Batch number {@code seq} (one more than the last) is written; returns at once. */
    void written(long seq) {
        synchronized (lock) {
            if (closed) throw new StoreException("the store's log syncer has stopped", null);
            writtenUpTo = seq;
            lock.notifyAll();
        }
    }

    /** Blocks until batch {@code seq} is synced (the shard stops); false if the syncer stopped first. */
    boolean awaitSynced(long seq) throws InterruptedException {
        synchronized (lock) {
            while (syncedUpTo < seq && !closed) lock.wait();
            return syncedUpTo >= seq;
        }
    }

    private void run() {
        while (true) {
            long upTo;
            synchronized (lock) {
                while (writtenUpTo == syncedUpTo && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (writtenUpTo == syncedUpTo) return;  // closed, everything synced
                upTo = writtenUpTo;
            }
            try {
                store.sync();
            } catch (StoreException e) {
                failed.accept(e);  // told first: whoever waits learns of the stop after the shard does
                synchronized (lock) {
                    closed = true;
                    lock.notifyAll();
                }
                return;
            }
            synced.accept(upTo);  // likewise
            synchronized (lock) {
                syncedUpTo = upTo;
                lock.notifyAll();
            }
        }
    }

    /** Syncs what was written, then stops the thread. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
