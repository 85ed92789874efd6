package io.pekquitto.ops.fatal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.pekquitto.shards.broker.Broker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.dispatch.MonitorableThreadFactory;

/**
 * The runnable broker's threads halt the JVM on a fatal error ({@link FatalErrorHandler}); only
 * {@code Main} asks for it, so an embedded broker never ends its host's process on its own. Two parts:
 * <ul>
 *   <li>{@link #install()}: the JVM's default handler, for every thread that has none of its own: ours
 *       (the store writer, the signal handlers, the shutdown thread, {@code main}) and the libraries'
 *       (the Prometheus client's HTTP server; RocksDB's Java side runs on the calling thread and starts none).</li>
 *   <li>{@link #actorSystemConfig}: Pekko gives each of its threads its own handler, which on a fatal error
 *       calls {@code System.exit} ({@code pekko.jvm-exit-on-fatal-error}), and so runs the shutdown hooks
 *       and CoordinatedShutdown's graceful shutdown first; every dispatcher of the broker's actor system and
 *       its scheduler get threads whose handler halts first and passes other errors on to Pekko's.</li>
 * </ul>
 * Errors a library catches never reach a handler; the launcher's {@code -XX:+ExitOnOutOfMemoryError}
 * covers the OutOfMemoryErrors among them (README, "When the heap fills").
 */
public final class HaltOnFatalError {
    /** Pekko's own dispatchers in the broker's actor system: what the actors, the scheduler's tasks and Pekko IO run on. */
    private static final List<String> PEKKO_DISPATCHERS = List.of("pekko.actor.default-dispatcher",
            "pekko.actor.internal-dispatcher", "pekko.actor.default-blocking-io-dispatcher", "pekko.io.pinned-dispatcher",
            "pekko.remote.default-remote-dispatcher", "pekko.remote.backoff-remote-dispatcher");

    private HaltOnFatalError() {}

    /** Makes the halting handler the JVM's default, in front of the default there was (if any). */
    public static void install() {
        var before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(
                FatalErrorHandler.halting(before != null ? before : FatalErrorHandler.printing(System.err)));
    }

    /**
     * {@code config}, the broker's actor-system configuration, with each of Pekko's dispatchers and the
     * dispatchers of {@code shards} shards behind {@link HaltingDispatcherConfigurator}, and the scheduler
     * {@link HaltingScheduler}: every thread of the actor system halts the JVM on a fatal error.
     */
    public static Config actorSystemConfig(Config config, int shards) {
        var dispatchers = new ArrayList<>(PEKKO_DISPATCHERS);
        for (int i = 0; i < shards; i++) dispatchers.add(Broker.dispatcherPath(i));
        var halting = ConfigFactory.empty()
                .withValue("pekko.scheduler.implementation", ConfigValueFactory.fromAnyRef(HaltingScheduler.class.getName()));
        for (var dispatcher : dispatchers) {
            // The dispatcher's own type, as configured (an operator's -D included), is what it goes on being.
            // One of another kind, which no dispatcher here has by default, keeps Pekko's handler alone.
            if (!config.hasPath(dispatcher + ".type")) continue;  // Pekko Remote's, in a broker without it
            var type = config.getString(dispatcher + ".type");
            if (!HaltingDispatcherConfigurator.TYPES.contains(type)) continue;
            halting = halting
                    .withValue(dispatcher + ".type", ConfigValueFactory.fromAnyRef(HaltingDispatcherConfigurator.class.getName()))
                    .withValue(dispatcher + "." + HaltingDispatcherConfigurator.TYPE, ConfigValueFactory.fromAnyRef(type));
        }
        return halting.withFallback(config);
    }

    /**
     * {@code factory}, whose threads each have a handler that halts on a fatal error and passes others on
     * to Pekko's. Pekko's actor system hands every dispatcher and its scheduler a factory of this class.
     */
    static ThreadFactory threads(ThreadFactory factory) {
        var pekkos = (MonitorableThreadFactory) factory;
        // Still Pekko's: names, daemon flag and class loader as they were, and one counter for the names.
        return pekkos.copy(pekkos.name(), pekkos.daemonic(), pekkos.contextClassLoader(),
                FatalErrorHandler.halting(pekkos.exceptionHandler()), pekkos.counter());
    }
}
