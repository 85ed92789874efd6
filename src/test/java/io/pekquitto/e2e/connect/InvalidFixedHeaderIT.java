package io.pekquitto.e2e.connect;

import static io.pekquitto.e2e.RawClient.DISCONNECT;
import static io.pekquitto.e2e.RawClient.PINGRESP;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static io.pekquitto.e2e.RawClient.hex;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RawClient.Connect;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A fixed header whose first byte is already invalid, followed by a Remaining Length announcing a
 * body of hundreds of megabytes that never comes. The first byte alone makes the packet malformed, so
 * the server closes at once (5.0: DISCONNECT 0x81 Malformed Packet or 0x82 Protocol Error first,
 * 4.13), without waiting for the body, for the keep-alive (60 s here) or for the connect timeout (10 s).
 * {@link MalformedPacketIT} sends such packets whole; this is about not waiting for what a client only
 * announces.
 */
class InvalidFixedHeaderIT {
    private static final int MALFORMED_PACKET = 0x81;
    private static final int PROTOCOL_ERROR = 0x82;
    /** The server must act well before the connect timeout, so waiting for a body cannot pass. */
    private static final Duration AT_ONCE = Duration.ofSeconds(5);
    private static final int ANNOUNCED_242_MIB = 242 << 20;
    private static final int ANNOUNCED_200_MIB = 200 << 20;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    /** An invalid first byte of a fixed header, and the protocol levels it is invalid in. */
    enum InvalidFirstByte {
        /** [MQTT-3.6.1-1] PUBREL's reserved flags are 0010. */
        PUBREL_WITH_FLAGS_0000(0x60, V311, V5),
        /** [MQTT-2.2.2-2 (3.1.1)] [MQTT-2.1.3-1 (5.0)] PINGREQ's reserved flags are 0000. */
        PINGREQ_WITH_FLAGS_0001(0xC1, V311, V5),
        /** 2.2.1 (3.1.1), 2.1.2 (5.0): packet type 0 is reserved. */
        RESERVED_TYPE_0(0x00, V311, V5),
        /** 2.2.1 (3.1.1): type 15 is reserved; in 5.0 it is AUTH. */
        RESERVED_TYPE_15(0xF0, V311),
        /** [MQTT-2.1.3-1 (5.0)] AUTH's reserved flags are 0000. */
        AUTH_WITH_FLAGS_0001(0xF1, V5),
        /** [MQTT-3.3.1-4] both QoS bits set. */
        PUBLISH_WITH_QOS_3(0x36, V311, V5),
        /** [MQTT-3.1.0-2] a second CONNECT is a Protocol Error. */
        SECOND_CONNECT(0x10, V311, V5),
        /** 2.1.2: PINGRESP goes from server to client only. */
        PINGRESP_FROM_A_CLIENT(0xD0, V311, V5);

        final int firstByte;
        final int[] versions;

        InvalidFirstByte(int firstByte, int... versions) {
            this.firstByte = firstByte;
            this.versions = versions;
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(InvalidFirstByte.values()).flatMap(invalid ->
                Arrays.stream(invalid.versions).mapToObj(version -> Arguments.of(invalid, version)));
    }

    @ParameterizedTest(name = "{0}, protocol level {1}")
    @MethodSource("cases")
    @Timeout(15)
    @DisplayName("an invalid first byte announcing a 242 MiB body closes the connection at once (5.0: DISCONNECT 0x81 or 0x82 first) [MQTT-4.8.0-1 (3.1.1)] [MQTT-4.13.1-1 (5.0)]")
    void invalidFirstByteClosesWithoutWaitingForTheBody(InvalidFirstByte invalid, int version) throws IOException {
        try (var client = broker.raw(Connect.of(version, Names.clientId("hdr")))) {
            client.send(new Bytes()
                    .u8(invalid.firstByte)                  // fixed header: type and invalid flags
                    .varInt(ANNOUNCED_242_MIB)              // remaining length: 242 MiB, never sent
                    .toByteArray());
            long start = System.nanoTime();
            if (version == V5) {
                var disconnect = client.expect(DISCONNECT, AT_ONCE);
                int reason = disconnect.disconnectReason();
                assertTrue(Set.of(MALFORMED_PACKET, PROTOCOL_ERROR).contains(reason),
                        () -> "DISCONNECT " + hex(reason) + ", expected 0x81 Malformed Packet or 0x82 Protocol Error");
            }
            client.expectClosed(AT_ONCE.minusNanos(System.nanoTime() - start));
        }
        assertABrandNewConnectionWorks(version);
    }

    @Test
    @Timeout(15)
    @DisplayName("before CONNECT, a PUBLISH fixed header announcing 200 MiB closes the connection at once, nothing sent [MQTT-3.1.0-1]")
    void publishHeaderBeforeConnectClosesWithoutWaitingForTheBody() throws IOException {
        try (var client = broker.raw()) {
            client.send(new Bytes()
                    .u8(0x30)                               // fixed header: PUBLISH QoS 0, a valid first byte
                    .varInt(ANNOUNCED_200_MIB)              // remaining length: 200 MiB, never sent
                    .toByteArray());
            client.expectClosed(AT_ONCE);
        }
        assertABrandNewConnectionWorks(V311);
    }

    private static void assertABrandNewConnectionWorks(int version) throws IOException {
        try (var client = broker.raw(Connect.of(version, Names.clientId("after")))) {
            client.send(RawClient.pingReq());
            client.expect(PINGRESP);
        }
    }
}
