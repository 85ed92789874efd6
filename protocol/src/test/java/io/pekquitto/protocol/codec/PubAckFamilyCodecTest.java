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

import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.ReasonCode;
import org.junit.jupiter.api.Test;

class PubAckFamilyCodecTest {
    @Test
    void v311AcksAreThePacketIdAlone() {
        assertEquals(new PubAck(7), decode(V3, 0x40, 2, 0, 7));
        assertEquals(new PubRec(7), decode(V3, 0x50, 2, 0, 7));
        assertEquals(new PubRel(7), decode(V3, 0x62, 2, 0, 7));   // PUBREL flags 0010
        assertEquals(new PubComp(7), decode(V3, 0x70, 2, 0, 7));
    }

    @Test
    void v311AckLongerThanTwoIsMalformed() {
        assertMalformed(V3, 0x40, 3, 0, 7, 0x10);  // a reason code is 5.0 only: left over
    }

    @Test
    void packetIdZeroIsMalformed() {
        assertMalformed(V5, 0x40, 2, 0, 0);  // [MQTT-2.2.1-3]
    }

    @Test
    void wrongFlagsAreMalformed() {
        assertMalformed(V3, 0x60, 2, 0, 7);  // PUBREL must be 0010 [MQTT-3.6.1-1], [MQTT-2.1.3-1]
        assertMalformed(V3, 0x42, 2, 0, 7);  // PUBACK must be 0000 [MQTT-2.1.3-1]
    }

    @Test
    void v5RemainingLengthTwoIsSuccessWithoutProperties() {
        assertEquals(new PubAck(7), decode(V5, 0x40, 2, 0, 7));  // 3.4.2.1
    }

    @Test
    void v5RemainingLengthThreeIsAReasonWithoutProperties() {
        assertEquals(new PubRec(7, ReasonCode.NO_MATCHING_SUBSCRIBERS, Properties.NONE),
                decode(V5, 0x50, 3, 0, 7, 0x10));
    }

    @Test
    void v5AckWithReasonString() {
        int[] vector = {
            0x70, 8,                        // PUBCOMP
            0, 7,                           // packet identifier
            0x92,                           // Packet Identifier not found
            4, 0x1F, 0, 1, 'x' };           // Reason String "x"
        var pubComp = new PubComp(7, ReasonCode.PACKET_IDENTIFIER_NOT_FOUND,
                Properties.builder().set(PropertyId.REASON_STRING, "x").build());
        assertEquals(pubComp, decode(V5, vector));
        assertArrayEquals(bytes(vector), encoded(pubComp, V5));
    }

    @Test
    void reasonNotAllowedInThePacketIsMalformed() {
        assertMalformed(V5, 0x62, 3, 0, 7, 0x10);  // No matching subscribers is not a PUBREL code (2.4)
    }

    @Test
    void encoderOmitsSuccessWithoutProperties() {
        assertArrayEquals(bytes(0x40, 2, 0, 7), encoded(new PubAck(7), V5));
        assertArrayEquals(bytes(0x50, 3, 0, 7, 0x80),
                encoded(new PubRec(7, ReasonCode.UNSPECIFIED_ERROR, Properties.NONE), V5));
    }

    @Test
    void v3EncoderWritesOnlyThePacketId() {
        var refused = new PubAck(7, ReasonCode.NOT_AUTHORIZED,
                Properties.builder().set(PropertyId.REASON_STRING, "no").build());
        assertArrayEquals(bytes(0x40, 2, 0, 7), encoded(refused, V3));
        assertArrayEquals(bytes(0x62, 2, 0, 7), encoded(new PubRel(7), V3_1));
    }
}
