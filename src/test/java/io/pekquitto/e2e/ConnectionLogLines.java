package io.pekquitto.e2e;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The lines of the connection log ({@code io.pekquitto.connections}) written during each test, at INFO
 * and above (the tests' logback-test.xml keeps that logger quiet otherwise):
 * {@code @RegisterExtension final ConnectionLogLines log = new ConnectionLogLines();}
 */
public final class ConnectionLogLines implements BeforeEachCallback, AfterEachCallback {
    /** How long a line may take: it is written after the client is told. */
    private static final Duration WAIT = Duration.ofSeconds(5);
    private final Logger logger = (Logger) LoggerFactory.getLogger("io.pekquitto.connections");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private Level levelBefore;

    @Override
    public void beforeEach(ExtensionContext context) {
        levelBefore = logger.getLevel();
        logger.setLevel(Level.INFO);
        lines.start();
        logger.addAppender(lines);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(lines);
        logger.setLevel(levelBefore);
    }

    /** Captures from {@code level} up for the rest of the test. */
    public void from(Level level) {
        logger.setLevel(level);
    }

    /** The lines logged at {@code level}, once {@code count} have come (a line is written after the client is told); fails after 5 s. */
    public List<String> await(Level level, int count) {
        Eventually.await(WAIT, () -> count + " lines at " + level + ": " + atLevel(level), () -> atLevel(level).size() >= count);
        return atLevel(level);
    }

    /** The first line at INFO that {@code wanted} accepts, once one has come; fails after 5 s, naming {@code what} it waited for. */
    public String awaitLine(String what, Predicate<String> wanted) {
        return Eventually.await(WAIT, what, () -> atLevel(Level.INFO).stream().filter(wanted).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    private List<String> atLevel(Level level) {
        synchronized (lines.list) {  // appended from the broker's threads
            return lines.list.stream().filter(line -> line.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
        }
    }
}
