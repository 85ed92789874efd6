package io.pekquitto.e2e.connect;

import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient.Connect;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed packets after a successful CONNECT, sent byte by byte. MQTT 5: the server answers with
 * DISCONNECT and the reason code, then closes (4.13.1); MQTT 3.1.1: the server just closes (4.8 of
 * 3.1.1; a 3.1.1 server never sends DISCONNECT). Either way the broker keeps serving other clients.
 */
class MalformedPacketIT {
    private static final int MALFORMED_PACKET = 0x81;
    private static final int TOPIC_NAME_INVALID = 0x90;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    /** One malformed input: its bytes for each protocol level and the MQTT 5 DISCONNECT reason it earns. */
    enum Malformed {
        /** [MQTT-3.3.1-4] both QoS bits set. */
        PUBLISH_WITH_QOS_3(MALFORMED_PACKET,
                new byte[] {
                        0x36, 5,                        // PUBLISH, flags 0110: QoS 3; remaining length 5
                        0, 1, 'a',                      // topic name "a"
                        0, 1},                          // packet identifier 1
                new byte[] {
                        0x36, 6,                        // PUBLISH, flags 0110: QoS 3; remaining length 6
                        0, 1, 'a',                      // topic name "a"
                        0, 1,                           // packet identifier 1
                        0}),                            // property length 0
        /** [MQTT-3.8.1-1] SUBSCRIBE's reserved flags must be 0010. */
        SUBSCRIBE_WITH_RESERVED_FLAGS_0000(MALFORMED_PACKET,
                new byte[] {
                        (byte) 0x80, 6,                 // SUBSCRIBE with flags 0000; remaining length 6
                        0, 1,                           // packet identifier 1
                        0, 1, 'a',                      // topic filter "a"
                        1},                             // requested QoS 1
                new byte[] {
                        (byte) 0x80, 7,                 // SUBSCRIBE with flags 0000; remaining length 7
                        0, 1,                           // packet identifier 1
                        0,                              // property length 0
                        0, 1, 'a',                      // topic filter "a"
                        1}),                            // subscription options: QoS 1
        /** 2.2.3 / 1.5.5: the Remaining Length is at most four bytes. */
        REMAINING_LENGTH_OF_5_BYTES(MALFORMED_PACKET,
                new byte[] {
                        0x30,                           // PUBLISH QoS 0
                        (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F},  // five length bytes
                new byte[] {
                        0x30,
                        (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F}),
        /** [MQTT-1.5.3-1 (3.1.1)] [MQTT-1.5.4-1 (5.0)] a UTF-16 surrogate (U+D800) is ill-formed UTF-8. */
        TOPIC_WITH_INVALID_UTF8(MALFORMED_PACKET,
                new byte[] {
                        0x30, 7,                        // PUBLISH QoS 0; remaining length 7
                        0, 4, 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80,  // topic "a" + encoded U+D800
                        'x'},                           // payload
                new byte[] {
                        0x30, 8,                        // PUBLISH QoS 0; remaining length 8
                        0, 4, 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80,  // topic "a" + encoded U+D800
                        0,                              // property length 0
                        'x'}),                          // payload
        /** [MQTT-3.10.1-1] UNSUBSCRIBE's reserved flags must be 0010. */
        UNSUBSCRIBE_WITH_RESERVED_FLAGS_0000(MALFORMED_PACKET,
                new byte[] {
                        (byte) 0xA0, 5,                 // UNSUBSCRIBE with flags 0000; remaining length 5
                        0, 1,                           // packet identifier 1
                        0, 1, 'a'},                     // topic filter "a"
                new byte[] {
                        (byte) 0xA0, 6,                 // UNSUBSCRIBE with flags 0000; remaining length 6
                        0, 1,                           // packet identifier 1
                        0,                              // property length 0
                        0, 1, 'a'}),                    // topic filter "a"
        /** [MQTT-3.6.1-1] PUBREL's reserved flags must be 0010. */
        PUBREL_WITH_RESERVED_FLAGS_0000(MALFORMED_PACKET,
                new byte[] {
                        0x60, 2,                        // PUBREL with flags 0000; remaining length 2
                        0, 1},                          // packet identifier 1
                new byte[] {
                        0x60, 2,                        // PUBREL with flags 0000; remaining length 2
                        0, 1}),                         // packet identifier 1 (reason 0x00 implied)
        /** [MQTT-1.5.3-2 (3.1.1)] [MQTT-1.5.4-2 (5.0)] [MQTT-4.7.3-2] no U+0000 in a string or topic. */
        TOPIC_WITH_NULL_CHARACTER(MALFORMED_PACKET,
                new byte[] {
                        0x30, 6,                        // PUBLISH QoS 0; remaining length 6
                        0, 3, 'a', 0, 'b',              // topic "a", NUL, "b"
                        'x'},                           // payload
                new byte[] {
                        0x30, 7,                        // PUBLISH QoS 0; remaining length 7
                        0, 3, 'a', 0, 'b',              // topic "a", NUL, "b"
                        0,                              // property length 0
                        'x'}),                          // payload
        /** [MQTT-3.3.2-2] a Topic Name has no wildcards; MQTT 5 names the reason 0x90 Topic Name invalid. */
        PUBLISH_TO_A_WILDCARD_TOPIC(TOPIC_NAME_INVALID,
                new byte[] {
                        0x30, 6,                        // PUBLISH QoS 0; remaining length 6
                        0, 3, 'a', '/', '+',            // topic "a/+"
                        'x'},                           // payload
                new byte[] {
                        0x30, 7,                        // PUBLISH QoS 0; remaining length 7
                        0, 3, 'a', '/', '+',            // topic "a/+"
                        0,                              // property length 0
                        'x'});                          // payload

        final int reasonCode;
        final byte[] v311;
        final byte[] v5;

        Malformed(int reasonCode, byte[] v311, byte[] v5) {
            this.reasonCode = reasonCode;
            this.v311 = v311;
            this.v5 = v5;
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(Malformed.values())
                .flatMap(malformed -> Stream.of(Arguments.of(malformed, V311), Arguments.of(malformed, V5)));
    }

    @ParameterizedTest(name = "{0}, protocol level {1}")
    @MethodSource("cases")
    @Timeout(15)
    @DisplayName("a malformed packet closes the connection (5.0: DISCONNECT with its reason first) and the broker carries on [MQTT-4.13.1-1 (5.0)] [MQTT-4.8.0-1 (3.1.1)]")
    void malformedPacketClosesTheConnectionAndTheBrokerCarriesOn(Malformed malformed, int version) throws Exception {
        try (var client = broker.raw(Connect.of(version, Names.clientId("bad")))) {
            if (version == V5) {
                client.send(malformed.v5);
                client.expectDisconnect(malformed.reasonCode, Duration.ofSeconds(5));
            } else {
                client.send(malformed.v311);
                client.expectClosed(Duration.ofSeconds(5));
            }
        }
        broker.assertServesQos1(version);
    }
}
