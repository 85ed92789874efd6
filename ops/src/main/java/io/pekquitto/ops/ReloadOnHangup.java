package io.pekquitto.ops;

import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ConfigurationException;
import java.util.ArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGHUP reloads what can change without a restart, as Mosquitto's does: the configuration ({@code -c}
 * file, system properties) is read again, and from it the log level ({@code log.level}), the password and
 * ACL files ({@code auth}) and each TLS listener's certificate, key and CA files. One line at INFO says
 * what was reloaded; a reload that fails (a bad configuration, a file that cannot be read) changes
 * nothing and says why at ERROR, and the broker runs on. Other changed keys are named at WARN: they need
 * a restart.
 */
final class ReloadOnHangup {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadOnHangup.class);

    private final Pekquitto broker;
    private final Supplier<CommandLine.Configuration> configuration;
    /** What the broker was started with: changes from it that a reload cannot apply are named each time. */
    private final BrokerSettings started;
    private LogLevel logLevel;

    ReloadOnHangup(Pekquitto broker, Supplier<CommandLine.Configuration> configuration, BrokerSettings started,
                   LogLevel logLevel) {
        this.broker = broker;
        this.configuration = configuration;
        this.started = started;
        this.logLevel = logLevel;
    }

    /**
     * Reloads on each SIGHUP (which then no longer stops the JVM, as it does by default), reading the
     * configuration {@code commandLine} names. Where the platform has no SIGHUP, nothing is installed.
     */
    static void install(Pekquitto broker, CommandLine commandLine, BrokerSettings started, LogLevel logLevel) {
        var reload = new ReloadOnHangup(broker, () -> commandLine.configuration(System.getProperties()),
                started, logLevel);
        try {
            Signal.handle(new Signal("HUP"), signal -> reload.reload());
        } catch (IllegalArgumentException e) {
            LOG.debug("no reload on SIGHUP: {}", e.getMessage());
        }
    }

    /** One reload; on the signal's own thread, one at a time. */
    synchronized void reload() {
        try {
            var next = configuration.get();
            var level = logLevel.reloaded(next.logLevel());
            var reloaded = new ArrayList<String>();
            reloaded.add(level.describe());
            reloaded.addAll(broker.reload(next.broker()));
            // After the files, which may fail: setting a level cannot, so a failed reload leaves it too.
            level.apply();
            logLevel = level;
            LOG.info("Reloaded on SIGHUP: {}", String.join("; ", reloaded));
            var needingRestart = Reload.needingRestart(started, next.broker());
            if (!needingRestart.isEmpty()) {
                LOG.warn("Not reloaded, changed in the configuration since start (restart the broker to apply): {}",
                        String.join(", ", needingRestart));
            }
        } catch (ConfigurationException | IllegalArgumentException e) {
            LOG.error("Reload on SIGHUP failed, nothing changed: {}", e.getMessage());
        }
    }
}
