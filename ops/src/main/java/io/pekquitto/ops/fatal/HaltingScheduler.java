package io.pekquitto.ops.fatal;

import com.typesafe.config.Config;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.LightArrayRevolverScheduler;
import org.apache.pekko.event.LoggingAdapter;

/**
 * Pekko's default scheduler ({@code pekko.scheduler.implementation}) on a timer thread that halts the
 * JVM on a fatal error, as every dispatcher thread of the runnable broker does ({@link HaltOnFatalError}):
 * the one thread an actor system has outside its dispatchers, which Pekko's handler would otherwise end
 * in {@code System.exit} and a graceful shutdown.
 */
public final class HaltingScheduler extends LightArrayRevolverScheduler {

    /** The constructor Pekko calls. */
    public HaltingScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {
        super(config, log, HaltOnFatalError.threads(threadFactory));
    }
}
