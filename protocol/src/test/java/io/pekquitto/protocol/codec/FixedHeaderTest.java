package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Invalid flags fail at the first byte, not after the announced body: each vector is a first byte alone,
 * or a fixed header announcing a large body that never comes. [MQTT-2.2.2-2] in 3.1.1, [MQTT-2.1.3-1] in 5.0.
 */
class FixedHeaderTest {
    private static void assertMalformedAtOnce(int... fed) {
        var reader = new PacketReader(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        reader.feed(ByteBuffer.wrap(bytes(fed)));
        assertEquals(ReasonCode.MALFORMED_PACKET, assertThrows(MalformedPacketException.class, reader::poll).reason());
    }

    private static void assertWaitsForTheBody(int... fed) {
        var reader = new PacketReader(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        reader.feed(ByteBuffer.wrap(bytes(fed)));
        assertNull(reader.poll());
    }

    @Test
    void connectWithFlagsIsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0x11);                        // CONNECT, flags 0001: must be 0000
        assertMalformedAtOnce(0x18, 0x80, 0x80, 0x80, 0x74); // CONNECT, flags 1000; remaining length 243,269,632
    }

    @Test
    void pubRelWithoutItsFlagIsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0x60);                        // PUBREL, flags 0000: must be 0010 [MQTT-3.6.1-1]
        assertMalformedAtOnce(0x63);                        // PUBREL, flags 0011
    }

    @Test
    void subscribeWithoutItsFlagIsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0x80, 0xFF, 0xFF, 0xFF, 0x7F); // SUBSCRIBE, flags 0000 [MQTT-3.8.1-1]; 256 MiB - 1
        assertMalformedAtOnce(0xA0);                        // UNSUBSCRIBE, flags 0000 [MQTT-3.10.1-1]
    }

    @Test
    void pingReqWithFlagsIsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0xC4, 0xFF, 0xFF, 0xFF, 0x7F); // PINGREQ, flags 0100; 256 MiB - 1 announced
    }

    @Test
    void publishWithQos3IsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0x36);                        // PUBLISH, both QoS bits set [MQTT-3.3.1-4]
        assertMalformedAtOnce(0x37, 0x80, 0x80, 0x80, 0x74); // QoS 3 and RETAIN; remaining length 243,269,632
    }

    @Test
    void publishWithDupAndQos0IsMalformedAtTheFirstByte() {
        assertMalformedAtOnce(0x38, 0x80, 0x80, 0x80, 0x74); // DUP with QoS 0 [MQTT-3.3.1-2]
    }

    @Test
    void validFlagsWaitForTheBody() {
        assertWaitsForTheBody(0x10, 0x80, 0x80, 0x80, 0x74); // CONNECT, flags 0000
        assertWaitsForTheBody(0x62, 0x02);                  // PUBREL, flags 0010
        assertWaitsForTheBody(0x82, 0x80, 0x01);            // SUBSCRIBE, flags 0010
        assertWaitsForTheBody(0x3D, 0x80, 0x80, 0x80, 0x74); // PUBLISH, DUP, QoS 2, RETAIN
    }
}
