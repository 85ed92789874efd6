package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static io.pekquitto.protocol.codec.Vectors.encoded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.Auth;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ReasonCode;
import org.junit.jupiter.api.Test;

/** PINGREQ, PINGRESP, DISCONNECT, AUTH, and what the decoder checks for every packet. */
class ControlCodecsTest {
    @Test
    void pingsAreDecoded() {
        assertEquals(PingReq.INSTANCE, decode(V3, 0xC0, 0));
        assertEquals(PingResp.INSTANCE, decode(V5, 0xD0, 0));
        assertArrayEquals(bytes(0xC0, 0), encoded(PingReq.INSTANCE, V5));
    }

    @Test
    void pingWithReservedFlagsIsMalformed() {
        assertMalformed(V3, 0xC8, 0);  // [MQTT-2.1.3-1]
    }

    @Test
    void bytesLeftOverAreMalformed() {
        assertMalformed(V3, 0xC0, 1, 0x00);  // PINGREQ has no variable header
    }

    @Test
    void packetTypeZeroIsMalformed() {
        assertMalformed(V3, 0x00, 0);  // reserved (2.1.2)
    }

    @Test
    void v311DisconnectIsTheFixedHeaderAlone() {
        assertEquals(Disconnect.NORMAL, decode(V3, 0xE0, 0));
        assertMalformed(V3, 0xE0, 1, 0x00);  // 3.14.2: no variable header in 3.1.1
    }

    @Test
    void v5DisconnectWithoutReasonIsNormal() {
        assertEquals(Disconnect.NORMAL, decode(V5, 0xE0, 0));  // 3.14.2.1
        assertEquals(new Disconnect(ReasonCode.DISCONNECT_WITH_WILL_MESSAGE, Properties.NONE), decode(V5, 0xE0, 1, 0x04));
    }

    @Test
    void v5DisconnectWithProperties() {
        int[] vector = {
            0xE0, 7,                        // DISCONNECT
            0x8B,                           // Server shutting down
            5, 0x11, 0, 0, 0, 0 };          // Session Expiry Interval 0
        var disconnect = new Disconnect(ReasonCode.SERVER_SHUTTING_DOWN,
                Properties.builder().set(PropertyId.SESSION_EXPIRY_INTERVAL, 0L).build());
        assertEquals(disconnect, decode(V5, vector));
        assertArrayEquals(bytes(vector), encoded(disconnect, V5));
    }

    @Test
    void disconnectEncoding() {
        assertArrayEquals(bytes(0xE0, 0), encoded(Disconnect.NORMAL, V5));
        assertArrayEquals(bytes(0xE0, 1, 0x8E),
                encoded(new Disconnect(ReasonCode.SESSION_TAKEN_OVER, Properties.NONE), V5));
        assertArrayEquals(bytes(0xE0, 0),
                encoded(new Disconnect(ReasonCode.SESSION_TAKEN_OVER, Properties.NONE), V3));  // no reason in 3.1.1
    }

    @Test
    void authIsMalformedBefore5() {
        assertMalformed(V3, 0xF0, 0);  // packet type 15 is reserved in 3.1.1 (2.2.1)
        assertThrows(IllegalArgumentException.class, () -> PacketEncoder.encode(new Auth(ReasonCode.SUCCESS, Properties.NONE), V3));
    }

    @Test
    void authWithoutReasonIsSuccess() {
        assertEquals(new Auth(ReasonCode.SUCCESS, Properties.NONE), decode(V5, 0xF0, 0));  // 3.15.2.1
        assertArrayEquals(bytes(0xF0, 0), encoded(new Auth(ReasonCode.SUCCESS, Properties.NONE), V5));
    }

    @Test
    void authContinueIsDecodedAndEncoded() {
        int[] vector = {
            0xF0, 8,                        // AUTH
            0x18,                           // Continue authentication
            6, 0x15, 0, 3, 'S', 'C', 'R' }; // Authentication Method "SCR"
        var auth = new Auth(ReasonCode.CONTINUE_AUTHENTICATION,
                Properties.builder().set(PropertyId.AUTHENTICATION_METHOD, "SCR").build());
        assertEquals(auth, decode(V5, vector));
        assertArrayEquals(bytes(vector), encoded(auth, V5));
    }
}
