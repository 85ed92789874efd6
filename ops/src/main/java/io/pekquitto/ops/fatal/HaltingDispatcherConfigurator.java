package io.pekquitto.ops.fatal;

import com.typesafe.config.Config;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.DynamicAccess;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.dispatch.DispatcherConfigurator;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.Mailboxes;
import org.apache.pekko.dispatch.MessageDispatcher;
import org.apache.pekko.dispatch.MessageDispatcherConfigurator;
import org.apache.pekko.dispatch.PinnedDispatcherConfigurator;
import org.apache.pekko.event.EventStream;
import scala.Option;
import scala.concurrent.ExecutionContext;

/**
 * Pekko's hook for a dispatcher whose threads halt the JVM on a fatal error: a dispatcher with
 * {@code type = "io.pekquitto.ops.fatal.HaltingDispatcherConfigurator"} is the dispatcher that
 * {@code halt-on-fatal-error.type} names ({@code Dispatcher} or {@code PinnedDispatcher}), configured
 * from the rest of its section as usual, whatever its executor (fork-join, thread pool, a shard's own),
 * but its threads come from {@link HaltOnFatalError#threads}. The thread factory is the one
 * thing the actor system hands every dispatcher ({@link DispatcherPrerequisites}), so this is where one
 * hook reaches all of them. {@link HaltOnFatalError#actorSystemConfig} writes both keys.
 */
public final class HaltingDispatcherConfigurator extends MessageDispatcherConfigurator {
    static final String TYPE = "halt-on-fatal-error.type";
    /** The dispatcher types it can be: those of Pekko's dispatchers and the shards'. */
    static final Set<String> TYPES = Set.of("Dispatcher", "PinnedDispatcher");

    private final MessageDispatcherConfigurator dispatcher;

    /** The constructor Pekko calls. */
    public HaltingDispatcherConfigurator(Config config, DispatcherPrerequisites prerequisites) {
        super(config, prerequisites);
        var halting = new Halting(prerequisites, HaltOnFatalError.threads(prerequisites.threadFactory()));
        var type = config.getString(TYPE);
        // What Pekko's Dispatchers makes of a dispatcher's `type`.
        this.dispatcher = switch (type) {
            case "Dispatcher" -> new DispatcherConfigurator(config, halting);
            case "PinnedDispatcher" -> new PinnedDispatcherConfigurator(config, halting);
            default -> throw new IllegalArgumentException(TYPE + " must be one of " + TYPES + ", not " + type);
        };
    }

    @Override
    public MessageDispatcher dispatcher() {
        return dispatcher.dispatcher();
    }

    /** The actor system's prerequisites for a dispatcher, with the halting thread factory. */
    private record Halting(DispatcherPrerequisites pekkos, ThreadFactory threadFactory) implements DispatcherPrerequisites {
        @Override
        public EventStream eventStream() {
            return pekkos.eventStream();
        }

        @Override
        public Scheduler scheduler() {
            return pekkos.scheduler();
        }

        @Override
        public DynamicAccess dynamicAccess() {
            return pekkos.dynamicAccess();
        }

        @Override
        public ActorSystem.Settings settings() {
            return pekkos.settings();
        }

        @Override
        public Mailboxes mailboxes() {
            return pekkos.mailboxes();
        }

        @Override
        public Option<ExecutionContext> defaultExecutionContext() {
            return pekkos.defaultExecutionContext();
        }
    }
}
