package io.pekquitto.shards.transport;

import com.typesafe.config.Config;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;
import org.apache.pekko.dispatch.MonitorableThreadFactory;

/**
 * Pekko's hook for a shard's dispatcher: {@code executor = "io.pekquitto.shards.transport.ShardLoopConfigurator"}
 * runs the dispatcher's actors on one Netty event loop, the thread that also reads and writes the sockets
 * of the shard's connections (docs/connections.md, The transport). An actor's turn and a socket's read
 * are tasks of the same loop: a connection's bytes reach it without crossing a thread.
 */
public final class ShardLoopConfigurator extends ExecutorServiceConfigurator {
    /** How long the loop spins before it sleeps ({@link SpinThenSleep}): the dispatcher's {@code spin}, 0 if none. */
    private final long spinNanos;

    public ShardLoopConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        this.spinNanos = config.hasPath("spin") ? config.getDuration("spin", TimeUnit.NANOSECONDS) : 0;
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
        // As Pekko's own configurators do: the dispatcher's id in the thread's name, for thread dumps.
        var named = threadFactory instanceof MonitorableThreadFactory monitorable
                ? monitorable.withName(monitorable.name() + "-" + id) : threadFactory;
        return () -> loopExecutor(named, spinNanos);
    }

    /**
     * One event loop of this process's {@link SocketKind}, on a thread from {@code threadFactory}, that spins
     * {@code spinNanos} before it sleeps, as an executor.
     */
    static ExecutorService loopExecutor(ThreadFactory threadFactory, long spinNanos) {
        return new LoopExecutor(new MultiThreadIoEventLoopGroup(1, threadFactory, SocketKind.chosen().handlerFactory(spinNanos)));
    }

    /** The one loop as the executor Pekko asks for: its shutdown ends the loop, and closes its sockets. */
    private static final class LoopExecutor extends AbstractExecutorService {
        private final MultiThreadIoEventLoopGroup group;

        LoopExecutor(MultiThreadIoEventLoopGroup group) {
            this.group = group;
        }

        /**
         * Netty's loop catches whatever a task throws and logs it; Pekko rethrows only fatal errors (an
         * OutOfMemoryError, say) for the thread's handler to decide, which on a pool would end the thread.
         * The loop's thread must go on, so the error goes to that handler here: the broker's halts the JVM.
         */
        @Override
        public void execute(Runnable task) {
            group.execute(() -> {
                try {
                    task.run();
                } catch (VirtualMachineError | LinkageError fatal) {
                    var thread = Thread.currentThread();
                    thread.getUncaughtExceptionHandler().uncaughtException(thread, fatal);
                }
            });
        }

        @Override
        public void shutdown() {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown();
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return group.isShuttingDown();
        }

        @Override
        public boolean isTerminated() {
            return group.isTerminated();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return group.awaitTermination(timeout, unit);
        }
    }
}
