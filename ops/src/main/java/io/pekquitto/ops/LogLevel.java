package io.pekquitto.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.typesafe.config.Config;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.SettingsReader;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The level of the broker's loggers ({@code io.pekquitto}) in the standalone broker, and what set it:
 * {@code -v} (DEBUG), else {@code PEKQUITTO_LOG_LEVEL} (environment variable or system property), else the
 * configuration's {@code log.level}. The first two are fixed at start; {@code log.level} is read again on
 * a reload, as Mosquitto reads its {@code log_type} again on SIGHUP. Only this class knows Logback.
 *
 * @param level    TRACE, DEBUG, INFO, WARN or ERROR
 * @param override {@code -v} or {@code PEKQUITTO_LOG_LEVEL} when one of them set the level, which the
 *                 configuration then does not change
 */
record LogLevel(String level, Optional<String> override) {

    /** Read by {@link ConsoleLogging} as the level of {@code io.pekquitto}; the environment variable works too. */
    static final String PROPERTY = "PEKQUITTO_LOG_LEVEL";
    /** The configuration key. */
    static final String KEY = SettingsReader.ROOT + ".log.level";
    private static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
    /** The loggers it sets; Pekko's and the libraries' stay at WARN ({@link ConsoleLogging}). */
    static final String LOGGER = "io.pekquitto";

    /** The level at start, before the first logger: {@code -v}, else the variable, else {@code configured}. */
    static LogLevel atStart(boolean verbose, String configured) {
        if (verbose) return new LogLevel("DEBUG", Optional.of("-v"));
        var variable = Optional.ofNullable(requested());
        return variable.map(level -> new LogLevel(level, Optional.of(PROPERTY))).orElse(new LogLevel(configured, Optional.empty()));
    }

    /** {@code PEKQUITTO_LOG_LEVEL}: the system property, else the environment variable; null without either. */
    static String requested() {
        return System.getProperty(PROPERTY, System.getenv(PROPERTY));
    }

    /** The configuration's {@code log.level}, upper case, checked. */
    static String configured(Config config) {
        var value = config.getString(KEY).strip().toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(value)) {
            throw new ConfigurationException(KEY + " must be TRACE, DEBUG, INFO, WARN or ERROR, not " + config.getString(KEY)
                    + " (" + config.getValue(KEY).origin().description() + ")");
        }
        return value;
    }

    /** The level after a reload whose configuration says {@code configured}: unchanged if overridden. */
    LogLevel reloaded(String configured) {
        return override.isPresent() ? this : new LogLevel(configured, Optional.empty());
    }

    /** Before the first logger: {@link ConsoleLogging} reads the level from {@link #PROPERTY}. */
    void beforeLogback() {
        System.setProperty(PROPERTY, level);
    }

    /** Sets the level of the running broker's loggers (Logback's API: SLF4J has none for it). */
    void apply() {
        if (LoggerFactory.getLogger(LOGGER) instanceof Logger logger) logger.setLevel(Level.toLevel(level));
    }

    /** For the reload's log line: {@code log level INFO}, or where an override came from. */
    String describe() {
        return "log level " + level + override.map(from -> " (set by " + from + ", log.level not applied)").orElse("");
    }
}
