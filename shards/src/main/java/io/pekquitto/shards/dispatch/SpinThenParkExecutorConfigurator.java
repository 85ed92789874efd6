package io.pekquitto.shards.dispatch;

import com.typesafe.config.Config;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;
import org.apache.pekko.dispatch.MonitorableThreadFactory;

/**
 * Pekko's hook for {@link SpinThenParkExecutor}: a dispatcher with
 * {@code executor = "io.pekquitto.shards.dispatch.SpinThenParkExecutorConfigurator"} runs on one thread
 * that spins for {@code spin-then-park.spin} before it parks.
 */
public final class SpinThenParkExecutorConfigurator extends ExecutorServiceConfigurator {
    private final long spinNanos;

    public SpinThenParkExecutorConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        this.spinNanos = config.getDuration("spin-then-park.spin", TimeUnit.NANOSECONDS);
    }

    @Override
    public ExecutorServiceFactory createExecutorServiceFactory(String id, java.util.concurrent.ThreadFactory threadFactory) {
        // As Pekko's own configurators do: the dispatcher's id in the thread's name, for thread dumps.
        var named = threadFactory instanceof MonitorableThreadFactory monitorable
                ? monitorable.withName(monitorable.name() + "-" + id) : threadFactory;
        return () -> new SpinThenParkExecutor(named, spinNanos);
    }
}
