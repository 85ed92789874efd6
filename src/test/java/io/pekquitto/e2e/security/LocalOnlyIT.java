package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.shards.settings.BrokerSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Secure by default, as Mosquitto 2.0: a broker started with no listener configured, and so with
 * anonymous access, listens on loopback only and says so; a configured listener binds every interface.
 */
class LocalOnlyIT {

    @Test
    @DisplayName("with no listener configured, the broker listens on 127.0.0.1:1883 only")
    void theDefaultListenerIsLoopbackOnly() {
        var listener = BrokerSettings.defaults().listeners().get(0);
        assertEquals("127.0.0.1", listener.host());
        assertEquals(1883, listener.port());
    }

    @Test
    @DisplayName("a broker reachable from this machine only says so at start; one on every interface does not")
    void theStartUpLogSaysWhenTheBrokerIsLocalOnly() throws Exception {
        try (var local = RunnableJar.start("listeners = [ { host = \"127.0.0.1\", port = 0 } ]")) {
            RawClient.connected(local.port(), RawClient.Connect.of(RawClient.V5, "local")).close();
            assertTrue(local.log().contains("Local only: clients on other machines cannot connect"), local.log());
        }
        try (var open = RunnableJar.start("listeners = [ { port = 0 } ]")) {
            // The wildcard address: 0.0.0.0, or :: where the JDK binds dual-stack.
            assertTrue(open.log().matches("(?s).*listening on \\[(0\\.0\\.0\\.0|0:0:0:0:0:0:0:0):.*"),
                    "a configured listener binds every interface: " + open.log());
            assertFalse(open.log().contains("Local only"), open.log());
        }
    }
}
