package io.pekquitto.shards.store;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The thread that writes one shard's batches, so that the shard goes on with its next turns while the
 * last batch is written (and, with {@code fsync}, synced). Batches handed over while a write is in
 * progress go together into the next write: the slower the disk, the larger the group commit, and
 * the shard's thread never waits for it. Batches are written in the order they were handed over, and
 * the shard is told the number of the last one written ({@code written}, called on this thread). A write
 * that fails stalls the writer: its writes are kept, in front of those handed over since, and written
 * again, before any other, once the shard says the store writes again ({@link #retry()}).
 */
final class StoreWriter implements AutoCloseable {
    private final Store store;
    private final LongConsumer written;
    private final Consumer<StoreException> failed;
    private final Thread thread;
    private final Object lock = new Object();
    /** Guarded by {@code lock}: the writes handed over and not yet taken, up to batch {@code pendingUpTo}. */
    private List<StoreBatch.Write> pending = new ArrayList<>();
    /** Guarded by {@code lock}: the writes being written now (not changed while they are), else null. */
    private List<StoreBatch.Write> inProgress;
    private long pendingUpTo;
    private long writtenUpTo;
    private boolean closed;
    /** A write failed: nothing is written until {@link #retry()}. */
    private boolean stalled;

    /**
     * @param written told the number of the last batch written, after each write
     * @param failed  told why a write failed; the writer stalls until {@link #retry()}
     */
    StoreWriter(Store store, String name, LongConsumer written, Consumer<StoreException> failed) {
        this.store = store;
        this.written = written;
        this.failed = failed;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Hands over batch number {@code seq} (one more than the last); returns at once. */
    void submit(List<StoreBatch.Write> writes, long seq) {
        synchronized (lock) {
            if (closed) throw new StoreException("the store writer has stopped", null);
            pending.addAll(writes);
            pendingUpTo = seq;
            lock.notifyAll();
        }
    }

    /** Whether batch {@code seq} is written already. */
    boolean hasWritten(long seq) {
        synchronized (lock) {
            return writtenUpTo >= seq;
        }
    }

    /**
     * Blocks until batch {@code seq} is written (a handover, a stop); false at once if the writer is
     * stalled on a failed write, or stopped first.
     */
    boolean awaitWritten(long seq) throws InterruptedException {
        synchronized (lock) {
            while (writtenUpTo < seq && !closed && !stalled) lock.wait();
            return writtenUpTo >= seq;
        }
    }

    /**
     * The writes handed over and not known to be written yet (being written, or waiting), oldest first,
     * that meet the keys of {@code keyspace} from {@code from} to {@code to} (null: no end): for a read through
     * them ({@link ReadThrough}), which must not wait.
     */
    List<StoreBatch.Write> unwritten(Keyspace keyspace, byte[] from, byte[] to) {
        synchronized (lock) {
            var unwritten = new ArrayList<StoreBatch.Write>();
            if (inProgress != null) for (var write : inProgress) if (write.meets(keyspace, from, to)) unwritten.add(write);
            for (var write : pending) if (write.meets(keyspace, from, to)) unwritten.add(write);
            return unwritten;
        }
    }

    /** Whether a failed write holds the writer back (until {@link #retry()}). */
    boolean isStalled() {
        synchronized (lock) {
            return stalled;
        }
    }

    /** The store writes again: the writes that failed go first, then those handed over since. */
    void retry() {
        synchronized (lock) {
            stalled = false;
            lock.notifyAll();
        }
    }

    private void run() {
        while (true) {
            List<StoreBatch.Write> writes;
            long upTo;
            synchronized (lock) {
                while ((pending.isEmpty() || stalled) && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (pending.isEmpty() || stalled) return;  // closed: everything written, or nothing can be
                writes = pending;
                upTo = pendingUpTo;
                pending = new ArrayList<>();
                inProgress = writes;
            }
            try {
                store.write(StoreBatch.of(writes));
            } catch (StoreException e) {
                synchronized (lock) {
                    writes.addAll(pending);  // kept, in order, in front of what came since
                    pending = writes;
                    inProgress = null;
                    stalled = true;
                    lock.notifyAll();  // a flushNow waiting learns that nothing is written for now
                }
                failed.accept(e);
                continue;
            }
            written.accept(upTo);  // likewise
            synchronized (lock) {
                writtenUpTo = upTo;
                inProgress = null;
                lock.notifyAll();
            }
        }
    }

    /** Writes what was handed over (unless stalled: that is lost, and was never acknowledged), then stops the thread. */
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
