package io.pekquitto.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongConsumer;

/**
 * One selector thread. Connections are created, driven and closed on it only; other threads hand it
 * work with {@link #execute}. Tick handlers run at least every millisecond-ish wake-up so that time
 * limits hold even when the broker stays silent.
 */
final class EventLoop implements AutoCloseable {

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final List<LongConsumer> tickers = new ArrayList<>();
    private volatile boolean running = true;
    private volatile Throwable failure;
    private final Transport transport;

    EventLoop(String name, Transport transport) {
        this.transport = transport;
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
    }

    static EventLoop[] start(int count, Transport transport) {
        var loops = new EventLoop[count];
        for (int i = 0; i < count; i++) {
            loops[i] = new EventLoop("bench-loop-" + i, transport);
            loops[i].thread.start();
        }
        return loops;
    }

    Transport transport() {
        return transport;
    }

    Selector selector() {
        return selector;
    }

    /** Runs the task on the loop thread. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** Adds a handler called with {@code System.nanoTime()} on every wake-up (loop thread only). */
    void onTick(LongConsumer ticker) {
        tickers.add(ticker);
    }

    Throwable failure() {
        return failure;
    }

    private void run() {
        try {
            while (running) {
                selector.select(this::dispatch, 5);
                Runnable task;
                while ((task = tasks.poll()) != null) task.run();
                if (!tickers.isEmpty()) {
                    long now = System.nanoTime();
                    for (int i = 0; i < tickers.size(); i++) tickers.get(i).accept(now);
                }
            }
        } catch (Throwable t) {
            failure = t;
            t.printStackTrace();
        } finally {
            for (var key : selector.keys()) {
                if (key.attachment() instanceof Connection c) c.closeQuietly();
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing at exit: nothing to answer
            }
        }
    }

    private void dispatch(SelectionKey key) {
        var connection = (Connection) key.attachment();
        connection.onSelected(key);
    }

    @Override
    public void close() {
        running = false;
        selector.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
