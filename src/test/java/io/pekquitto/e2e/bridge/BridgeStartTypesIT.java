package io.pekquitto.e2e.bridge;

import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.WAIT;
import static io.pekquitto.e2e.bridge.BridgeToMosquittoIT.pekquittoBridgedTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.PahoClient;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ReasonCode;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Mosquitto's start types: lazy (up at a threshold, down when idle) and once (never again after a drop). */
class BridgeStartTypesIT {

    @Test
    @Timeout(60)
    @DisplayName("lazy: the link comes up once threshold messages wait, carries them, and goes when idle")
    void lazy() throws Exception {
        var clientId = Names.clientId("lazy");
        var state = BridgeToMosquittoIT.stateTopic(clientId);
        try (var remote = MosquittoRemote.launch();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, "[ { pattern = \"lazy/#\", qos = 1 } ]",
                     "start-type = lazy, threshold = 5, idle-timeout = 1s");
             var local = PahoClient.connect(RawClient.V5, pekquitto.port(), Names.clientId("local"));
             var far = V3Client.connect(remote.port(), Names.clientId("far"), options -> {})) {
            far.subscribe("lazy/#", 1);
            local.subscribe(state, 1);
            assertEquals("0", local.inbox().next(WAIT).text());
            for (int i = 0; i < 4; i++) local.publish("lazy/x", "m" + i, 1, false);
            far.inbox().expectNothing(Duration.ofSeconds(1));  // below the threshold: no link
            local.publish("lazy/x", "m4", 1, false);
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), far.inbox().next(5, WAIT).stream().map(Inbox.Message::text).toList());
            assertEquals("1", local.inbox().next(WAIT).text());
            assertEquals("0", local.inbox().next(WAIT).text(), "idle for idle-timeout: the link goes");
        }
    }

    @Test
    @Timeout(60)
    @DisplayName("once: a link that drops is not connected again")
    void once() throws Exception {
        var clientId = Names.clientId("once");
        try (var remote = new FakeRemote();
             var pekquitto = pekquittoBridgedTo(remote.port(), "3.1.1", clientId, "[ { pattern = \"once/#\" } ]", "start-type = once")) {
            try (var first = remote.accept(WAIT)) {
                assertInstanceOf(Connect.class, first.next(WAIT));
                first.send(new ConnAck(false, ReasonCode.SUCCESS, Properties.NONE));
            }
            assertThrows(SocketTimeoutException.class, () -> remote.accept(Duration.ofSeconds(2)), "no second attempt");
        }
    }
}
