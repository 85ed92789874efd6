package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V3_1;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static io.pekquitto.protocol.codec.Vectors.encoded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.UnsubAck;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CONNACK, SUBACK and UNSUBACK: the server's answers. */
class AckCodecsTest {
    @Test
    void v311ConnAckReturnCodesAreDecoded() {
        assertEquals(new ConnAck(true, ReasonCode.SUCCESS, Properties.NONE), decode(V3, 0x20, 2, 0x01, 0x00));
        assertEquals(new ConnAck(false, ReasonCode.NOT_AUTHORIZED, Properties.NONE), decode(V3, 0x20, 2, 0x00, 0x05));
    }

    @Test
    void reservedConnAckReturnCodeIsMalformed() {
        assertMalformed(V3, 0x20, 2, 0x00, 0x06);  // 6-255 reserved (3.2.2.3)
    }

    @Test
    void reservedAcknowledgeFlagsAreMalformed() {
        assertMalformed(V3, 0x20, 2, 0x02, 0x00);       // bits 7-1 reserved [MQTT-3.2.2-1]
        assertMalformed(V5, 0x20, 3, 0x80, 0x00, 0);
    }

    @Test
    void v5ConnAckIsDecodedAndEncoded() {
        int[] vector = {
            0x20, 8,                    // CONNACK
            0x00,                       // session present 0
            0x00,                       // Success
            5,                          // property length
            0x24, 0x01,                 //   Maximum QoS 1
            0x21, 0x00, 0x0A };         //   Receive Maximum 10
        var connAck = new ConnAck(false, ReasonCode.SUCCESS,
                Properties.builder().set(PropertyId.RECEIVE_MAXIMUM, 10).set(PropertyId.MAXIMUM_QOS, 1).build());
        assertEquals(connAck, decode(V5, vector));
        // The encoder writes properties in identifier order: Receive Maximum (0x21) before Maximum QoS (0x24).
        assertArrayEquals(bytes(0x20, 8, 0, 0, 5, 0x21, 0, 10, 0x24, 1), encoded(connAck, V5));
    }

    @Test
    void v3ConnAckEncoderWritesTheReturnCode() {
        assertArrayEquals(bytes(0x20, 2, 0x00, 0x05),
                encoded(new ConnAck(false, ReasonCode.BANNED, Properties.NONE), V3));        // 5: not authorized
        assertArrayEquals(bytes(0x20, 2, 0x00, 0x01),
                encoded(new ConnAck(false, ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, Properties.NONE), V3_1));
    }

    @Test
    void v311SubAckFailureIsUnspecifiedError() {
        assertEquals(new SubAck(3, List.of(ReasonCode.GRANTED_QOS_2, ReasonCode.UNSPECIFIED_ERROR), Properties.NONE),
                decode(V3, 0x90, 4, 0, 3, 0x02, 0x80));  // 3.9.3
    }

    @Test
    void v311SubAckReservedCodeIsMalformed() {
        assertMalformed(V3, 0x90, 3, 0, 3, 0x03);        // only 0, 1, 2, 0x80 (3.9.3)
    }

    @Test
    void v3SubAckEncoderWrites0x80ForAnyError() {
        var subAck = new SubAck(3, List.of(ReasonCode.GRANTED_QOS_1, ReasonCode.TOPIC_FILTER_INVALID,
                ReasonCode.NOT_AUTHORIZED), Properties.NONE);
        assertArrayEquals(bytes(0x90, 5, 0, 3, 0x01, 0x80, 0x80), encoded(subAck, V3));
    }

    @Test
    void v5SubAckReasonsAreDecoded() {
        assertEquals(new SubAck(3, List.of(ReasonCode.GRANTED_QOS_0, ReasonCode.TOPIC_FILTER_INVALID), Properties.NONE),
                decode(V5, 0x90, 5, 0, 3, 0, 0x00, 0x8F));
        assertMalformed(V5, 0x90, 4, 0, 3, 0, 0x92);     // Packet Identifier not found is not a SUBACK code
    }

    @Test
    void v311UnsubAckHasNoReasons() {
        assertEquals(new UnsubAck(4, List.of(), Properties.NONE), decode(V3, 0xB0, 2, 0, 4));
        assertMalformed(V3, 0xB0, 3, 0, 4, 0x00);        // left over
    }

    @Test
    void v3UnsubAckEncoderWritesOnlyThePacketId() {
        assertArrayEquals(bytes(0xB0, 2, 0, 4),
                encoded(new UnsubAck(4, List.of(ReasonCode.NO_SUBSCRIPTION_EXISTED), Properties.NONE), V3));
    }

    @Test
    void v5UnsubAckReasonsAreDecoded() {
        assertEquals(new UnsubAck(4, List.of(ReasonCode.SUCCESS, ReasonCode.NO_SUBSCRIPTION_EXISTED), Properties.NONE),
                decode(V5, 0xB0, 5, 0, 4, 0, 0x00, 0x11));
    }
}
