package io.pekquitto.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The runnable jar's logging, on stderr as Mosquitto's (stdout is for the help and the version): the broker's
 * loggers ({@code io.pekquitto}) at {@code PEKQUITTO_LOG_LEVEL} (system property or environment variable,
 * INFO without it: {@link LogLevel} sets it before the first logger), Pekko and the libraries at WARN
 * (Pekko logs its start-up and shutdown at INFO). {@code PEKQUITTO_LOG_FORMAT=json} writes one JSON object
 * per line (Logback's own JsonEncoder, the message formatted) for log collectors. Nothing is logged per
 * message above TRACE: a busy broker would log as much as it routes.
 *
 * <p>Built in code rather than read from a logback.xml: Logback's XML configurator and the JDK's XML parser
 * are about 500 classes, 3 MiB of an empty broker's RSS (BENCHMARKS.md, "Footprint of an empty broker").
 * Logback finds this class as a service ({@code META-INF/services}) before its own configurators, and hands
 * over to them when {@code -Dlogback.configurationFile=FILE} names a configuration of the operator's, or when
 * the classpath has a {@code logback.xml}: an application that embeds the broker keeps its own logging. (Not
 * for a {@code logback-test.xml} alone: the end-to-end tests start the broker's main class with theirs on the
 * classpath, and it is the jar's logging they read.)
 */
public final class ConsoleLogging extends ContextAwareBase implements Configurator {

    /** Logback's own setting for a configuration file, which replaces this one. */
    static final String CONFIGURATION_FILE = "logback.configurationFile";
    static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{0} - %msg%n";
    /** An application's Logback configuration, where Logback's own configurator looks for it. */
    static final String APPLICATION_FILE = "logback.xml";

    /** Where a {@code logback.xml} of the application's would be. */
    private final ClassLoader classpath;

    /** As Logback makes it, from the service file. */
    public ConsoleLogging() {
        this(ConsoleLogging.class.getClassLoader());
    }

    ConsoleLogging(ClassLoader classpath) {
        this.classpath = classpath;
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty(CONFIGURATION_FILE) != null || classpath.getResource(APPLICATION_FILE) != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        var appender = new ConsoleAppender<ILoggingEvent>();
        appender.setContext(context);
        appender.setName("CONSOLE");
        appender.setTarget("System.err");
        appender.setEncoder(encoder(context, "json".equals(Main.logFormat())));
        appender.start();
        // As Logback reads a level attribute: a name it does not know is DEBUG.
        var level = LogLevel.requested();
        context.getLogger(LogLevel.LOGGER).setLevel(level == null ? Level.INFO : Level.toLevel(level));
        var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(appender);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, boolean json) {
        if (json) {
            var encoder = new JsonEncoder();
            encoder.setContext(context);
            encoder.setWithSequenceNumber(false);
            encoder.setWithNanoseconds(false);
            encoder.setWithContext(false);
            encoder.setWithMessage(false);
            encoder.setWithArguments(false);
            encoder.setWithFormattedMessage(true);
            encoder.start();
            return encoder;
        }
        var encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        return encoder;
    }
}
