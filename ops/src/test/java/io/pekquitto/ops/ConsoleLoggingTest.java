package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar's logging, built without Logback's XML configurator: what logback.xml said, in code. */
class ConsoleLoggingTest {

    private static final List<String> PROPERTIES =
            List.of(ConsoleLogging.CONFIGURATION_FILE, LogLevel.PROPERTY, Main.LOG_FORMAT_PROPERTY);
    private final Map<String, String> saved = new HashMap<>();
    private final LoggerContext context = new LoggerContext();

    @BeforeEach
    void withoutTheTestsProperties() {
        context.setMDCAdapter(new LogbackMDCAdapter());  // as Logback's SLF4J provider gives its context
        // The tests' JVM names logback-test.xml (ops/pom.xml); the jar's does not.
        for (var name : PROPERTIES) {
            saved.put(name, System.getProperty(name));
            System.clearProperty(name);
        }
    }

    @AfterEach
    void restore() {
        context.stop();
        saved.forEach((name, value) -> {
            if (value == null) System.clearProperty(name);
            else System.setProperty(name, value);
        });
    }

    /** The runnable jar's classpath: no logback.xml of an application's (the tests' classpath has logback-test.xml). */
    private static final ClassLoader JAR_ONLY = new ClassLoader(null) {};

    private ConsoleAppender<ILoggingEvent> configured() {
        var logging = new ConsoleLogging(JAR_ONLY);
        logging.setContext(context);
        assertEquals(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, logging.configure(context));
        var appender = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE");
        return assertInstanceOf(ConsoleAppender.class, appender);
    }

    private String encoded(ConsoleAppender<ILoggingEvent> appender, long millis) {
        var logger = context.getLogger("io.pekquitto.ops.Main");
        var event = new LoggingEvent("test", logger, Level.INFO, "listening on {}", null, new Object[] {"[127.0.0.1:1883]"});
        event.setTimeStamp(millis);
        return new String(appender.getEncoder().encode(event), StandardCharsets.UTF_8);
    }

    @Test
    void theBrokersLinesGoToStderrAtInfoAndTheLibrariesAtWarn() {
        var appender = configured();

        assertEquals("System.err", appender.getTarget());
        assertTrue(appender.isStarted());
        assertEquals(Level.INFO, context.getLogger("io.pekquitto").getLevel());
        assertEquals(Level.WARN, context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel());
        var millis = LocalDateTime.of(2026, 12, 5, 13, 4, 5, 678_000_000).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
        assertEquals("2026-12-05 13:04:05.678 INFO  Main - listening on [127.0.0.1:1883]" + System.lineSeparator(),
                encoded(appender, millis));
    }

    @Test
    void theVariableSetsTheBrokersLevelAndAnUnknownNameIsDebug() {
        System.setProperty(LogLevel.PROPERTY, "WARN");
        configured();
        assertEquals(Level.WARN, context.getLogger("io.pekquitto").getLevel());

        System.setProperty(LogLevel.PROPERTY, "LOUD");
        configured();
        assertEquals(Level.DEBUG, context.getLogger("io.pekquitto").getLevel());
    }

    @Test
    void theJsonFormatWritesOneObjectPerLineWithTheMessageFormatted() {
        System.setProperty(Main.LOG_FORMAT_PROPERTY, "json");
        var appender = configured();

        assertInstanceOf(JsonEncoder.class, appender.getEncoder());
        var line = encoded(appender, 0).strip();
        assertTrue(line.startsWith("{") && line.endsWith("}"), line);
        assertTrue(line.contains("\"level\":\"INFO\""), line);
        assertTrue(line.contains("\"formattedMessage\":\"listening on [127.0.0.1:1883]\""), line);
        assertFalse(line.contains("\"arguments\""), line);
    }

    @Test
    void anOperatorsConfigurationFileReplacesIt() {
        System.setProperty(ConsoleLogging.CONFIGURATION_FILE, "mine.xml");
        var logging = new ConsoleLogging(JAR_ONLY);
        logging.setContext(context);

        assertEquals(ExecutionStatus.INVOKE_NEXT_IF_ANY, logging.configure(context));
        assertNull(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE"));
    }

    /** What the configurator does on a classpath of one directory holding {@code file}. */
    private ExecutionStatus configuredBeside(Path classes, String file) throws Exception {
        Files.writeString(classes.resolve(file), "<configuration/>");
        try (var classpath = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            var logging = new ConsoleLogging(classpath);
            logging.setContext(context);
            return logging.configure(context);
        }
    }

    @Test
    void aLogbackTestXmlAloneDoesNotReplaceIt(@TempDir Path classes) throws Exception {
        assertEquals(ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY, configuredBeside(classes, "logback-test.xml"));
    }

    @Test
    void anEmbeddingApplicationsLogbackXmlReplacesIt(@TempDir Path classes) throws Exception {
        assertEquals(ExecutionStatus.INVOKE_NEXT_IF_ANY, configuredBeside(classes, "logback.xml"));
        assertNull(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("CONSOLE"));
    }
}
