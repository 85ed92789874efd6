package io.pekquitto.e2e.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.V5Client;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A line per connect and disconnect at INFO on {@code io.pekquitto.connections}, as Mosquitto's
 * {@code connection_messages}, and at DEBUG instead with {@code log.connection-messages = false}.
 */
class ConnectionLogIT {
    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    private final Logger logger = (Logger) LoggerFactory.getLogger("io.pekquitto.connections");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private Level levelBefore;

    @BeforeEach
    void captureTheConnectionLog() {
        levelBefore = logger.getLevel();
        logger.setLevel(Level.INFO);  // the tests' logback-test.xml keeps it quiet
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
        logger.setLevel(levelBefore);
    }

    /** The lines logged at {@code level}, once {@code count} have come (the disconnect line is written after the client is told). */
    private List<String> lines(Level level, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lines.list.stream().filter(line -> line.getLevel() == level).count() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return lines.list.stream().filter(line -> line.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aConnectAndADisconnectEachLogALine() throws Exception {
        var client = V5Client.connect(broker.port(), "logged-client", options -> options.setKeepAliveInterval(30));
        client.disconnect();

        var logged = lines(Level.INFO, 2);
        assertEquals(2, logged.size(), logged.toString());
        assertTrue(logged.get(0).matches("New client connected from 127\\.0\\.0\\.1:\\d+ as logged-client \\(p5, c1, k30\\)\\."),
                logged.get(0));
        assertTrue(logged.get(1).matches("Client logged-client \\[127\\.0\\.0\\.1:\\d+] disconnected: DISCONNECT .*\\."),
                logged.get(1));
    }

    @Test
    @BrokerExtension.Overrides("log.connection-messages = false")
    void theSwitchTurnsThemOff() throws Exception {
        logger.setLevel(Level.DEBUG);
        var client = V5Client.connect(broker.port(), "quiet-client", options -> {});
        client.disconnect();

        assertEquals(2, lines(Level.DEBUG, 2).size(), "at DEBUG instead");
        assertEquals(List.of(), lines(Level.INFO, 0));
    }
}
