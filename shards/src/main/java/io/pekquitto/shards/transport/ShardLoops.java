package io.pekquitto.shards.transport;

import io.netty.channel.IoEventLoop;
import io.netty.util.internal.ThreadExecutorMap;

/** The event loop a shard runs on, found from its own thread. */
public final class ShardLoops {
    private ShardLoops() {}

    /**
     * The event loop of the calling thread: a shard's, when called in the shard's turn.
     *
     * @throws IllegalStateException if the thread is no event loop's: the shard's dispatcher is not
     *                               {@link ShardLoopConfigurator}'s, and its sockets would have no thread
     */
    public static IoEventLoop current() {
        if (ThreadExecutorMap.currentExecutor() instanceof IoEventLoop loop) return loop;
        throw new IllegalStateException("thread [" + Thread.currentThread().getName() + "] is not an event loop's: a shard's "
                + "dispatcher must have executor = \"" + ShardLoopConfigurator.class.getName() + "\"");
    }
}
