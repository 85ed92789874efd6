package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.pekquittoBridgedTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ReasonCode;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A remote that refuses, falls silent or sends garbage: the bridge gives the link up and comes back. */
class BridgeFaultsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TOPICS = "[ { pattern = \"f/#\", direction = both, qos = 1 } ]";

    /** Accepts the bridge's next connection and reads its CONNECT. */
    private static FakeRemote.Connection connected(FakeRemote remote, String clientId) throws Exception {
        var connection = remote.accept(WAIT);
        var connect = assertInstanceOf(Connect.class, connection.next(WAIT));
        assertEquals(clientId, connect.clientId());
        assertTrue(connect.bridge(), "a 3.1.1 bridge sets the bridge bit");
        return connection;
    }

    @Test
    @Timeout(60)
    @DisplayName("a refused CONNECT ends the attempt, and the bridge tries again after its restart timeout")
    void refusedConnect() throws Exception {
        var clientId = Names.clientId("bridge");
        try (var remote = new FakeRemote();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, TOPICS, "")) {
            try (var first = connected(remote, clientId)) {
                first.send(new ConnAck(false, ReasonCode.NOT_AUTHORIZED, Properties.NONE));
                assertTrue(first.closedWithin(WAIT), "the bridge closes a refused link");
            }
            connected(remote, clientId).close();
        }
    }

    @Test
    @Timeout(60)
    @DisplayName("a remote that stops answering PINGREQ is given up after a keep-alive period, then connected again")
    void silentRemote() throws Exception {
        var clientId = Names.clientId("bridge");
        try (var remote = new FakeRemote();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, TOPICS, "keep-alive = 1s")) {
            try (var first = connected(remote, clientId)) {
                first.send(new ConnAck(false, ReasonCode.SUCCESS, Properties.NONE));
                var pings = 0;
                for (var packet : first.within(Duration.ofMillis(1_500))) if (packet instanceof PingReq) pings++;
                assertTrue(pings >= 1, "a PINGREQ each keep-alive period");
                assertTrue(first.closedWithin(Duration.ofSeconds(3)), "no PINGRESP: the link is given up");
            }
            connected(remote, clientId).close();
        }
    }

    @Test
    @Timeout(60)
    @DisplayName("a malformed packet from the remote ends the link, and the bridge connects again")
    void garbage() throws Exception {
        var clientId = Names.clientId("bridge");
        try (var remote = new FakeRemote();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, TOPICS, "")) {
            try (var first = connected(remote, clientId)) {
                first.send(new ConnAck(false, ReasonCode.SUCCESS, Properties.NONE));
                first.sendRaw((byte) 0x00, (byte) 0x00);  // packet type 0 is reserved (2.1.2)
                assertTrue(first.closedWithin(WAIT), "the bridge closes the link");
            }
            connected(remote, clientId).close();
        }
    }
}
