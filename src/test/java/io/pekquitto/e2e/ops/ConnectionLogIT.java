package io.pekquitto.e2e.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.ConnectionLogLines;
import io.pekquitto.e2e.V5Client;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A line per connect and disconnect at INFO on {@code io.pekquitto.connections}, as Mosquitto's
 * {@code connection_messages}, and at DEBUG instead with {@code log.connection-messages = false}.
 */
class ConnectionLogIT {
    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    @RegisterExtension
    final ConnectionLogLines log = new ConnectionLogLines();

    @Test
    void aConnectAndADisconnectEachLogALine() throws Exception {
        var client = V5Client.connect(broker.port(), "logged-client", options -> options.setKeepAliveInterval(30));
        client.disconnect();

        var logged = log.await(Level.INFO, 2);
        assertEquals(2, logged.size(), logged.toString());
        assertTrue(logged.get(0).matches("New client connected from 127\\.0\\.0\\.1:\\d+ as logged-client \\(p5, c1, k30\\)\\."),
                logged.get(0));
        assertTrue(logged.get(1).matches("Client logged-client \\[127\\.0\\.0\\.1:\\d+] disconnected: DISCONNECT .*\\."),
                logged.get(1));
    }

    @Test
    @BrokerExtension.Overrides("log.connection-messages = false")
    void theSwitchTurnsThemOff() throws Exception {
        log.from(Level.DEBUG);
        var client = V5Client.connect(broker.port(), "quiet-client", options -> {});
        client.disconnect();

        assertEquals(2, log.await(Level.DEBUG, 2).size(), "at DEBUG instead");
        assertEquals(List.of(), log.await(Level.INFO, 0));
    }
}
