package io.pekquitto.e2e.limits;

import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With the store on, the PUBRECs of what a client was within its rights to send wait for the shard's
 * write; a DISCONNECT 0x93 for the PUBLISH past the Receive Maximum comes after them, not instead of
 * them (before, 0 to 19 of the 20 arrived, their writes still pending as the connection closed).
 */
@Timeout(60)
class ReceiveMaximumWithStoreIT {
    private static final Path STORE = temporaryDirectory();

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess(
            "receive-maximum = 20\nstore { enabled = true, path = \"" + STORE.toAbsolutePath() + "\" }");

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("pekquitto-receive-maximum");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @RepeatedTest(3)
    @DisplayName("[MQTT-3.3.4-9] store on: 21 QoS 2 PUBLISHes in one write get 20 PUBRECs, then DISCONNECT 0x93")
    void theAcknowledgementsOfWhatWasAcceptedComeBeforeTheDisconnect() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("rm")))) {
            var all = new ByteArrayOutputStream();
            for (int id = 1; id <= 21; id++) all.write(RawClient.publish(V5, "limits/rm", 2, id, "m" + id));
            client.send(all.toByteArray());  // in one go: the broker reads them in one chunk, one turn
            for (int id = 1; id <= 20; id++) assertEquals(id, client.expect(PUBREC).packetId());
            client.expectDisconnect(0x93, Duration.ofSeconds(5));
        }
    }
}
