package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V3_1;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.assertRefused;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static io.pekquitto.protocol.codec.Vectors.encoded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Will;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConnectCodecTest {
    @Test
    void mosquittoPubConnectIsDecoded() {
        // mosquitto_pub -i mosq-pub -t test -m hello (3.1.1)
        var connect = (Connect) decode(V3,
                0x10, 0x14,                             // CONNECT, remaining length 20
                0x00, 0x04, 'M', 'Q', 'T', 'T',         // protocol name
                0x04,                                   // level 4: 3.1.1
                0x02,                                   // connect flags: clean session
                0x00, 0x3C,                             // keep alive 60
                0x00, 0x08, 'm', 'o', 's', 'q', '-', 'p', 'u', 'b');  // client id
        assertEquals(new Connect(V3, "mosq-pub", true, 60, Optional.empty(), Optional.empty(), Optional.empty(),
                Properties.NONE), connect);
    }

    static final int[] CONNECT_V5_WITH_EVERYTHING = {
        0x10, 0x30,                             // CONNECT, remaining length 48
        0x00, 0x04, 'M', 'Q', 'T', 'T',         // protocol name
        0x05,                                   // level 5
        0xEE,                                   // user name, password, will retain, will QoS 1, will, clean start
        0x00, 0x0A,                             // keep alive 10
        0x0F,                                   // property length 15
        0x11, 0x00, 0x00, 0x0E, 0x10,           //   Session Expiry Interval 3600
        0x21, 0x00, 0x14,                       //   Receive Maximum 20
        0x26, 0x00, 0x01, 'a', 0x00, 0x01, 'b', //   User Property a=b
        0x00, 0x02, 'c', '1',                   // client id "c1"
        0x05,                                   // will property length 5
        0x18, 0x00, 0x00, 0x00, 0x05,           //   Will Delay Interval 5
        0x00, 0x01, 'w',                        // will topic "w"
        0x00, 0x01, 'x',                        // will payload "x"
        0x00, 0x01, 'u',                        // user name "u"
        0x00, 0x01, 'p' };                      // password "p"

    static final Connect EXPECTED_V5 = new Connect(V5, "c1", true, 10,
            Optional.of(new Will("w", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true,
                    Properties.builder().set(PropertyId.WILL_DELAY_INTERVAL, 5L).build())),
            Optional.of("u"), Optional.of(Binary.utf8("p")),
            Properties.builder().set(PropertyId.SESSION_EXPIRY_INTERVAL, 3600L)
                    .set(PropertyId.RECEIVE_MAXIMUM, 20).addUserProperty("a", "b").build());

    @Test
    void connectV5WithPropertiesAndWillIsDecoded() {
        assertEquals(EXPECTED_V5, decode(V3, CONNECT_V5_WITH_EVERYTHING));
    }

    @Test
    void connectV5IsEncodedAsWritten() {
        assertArrayEquals(bytes(CONNECT_V5_WITH_EVERYTHING), encoded(EXPECTED_V5, V5));
    }

    @Test
    void connect31IsDecodedAndEncodedWithMQIsdp() {
        int[] vector = {
            0x10, 0x0F,                                     // CONNECT, remaining length 15
            0x00, 0x06, 'M', 'Q', 'I', 's', 'd', 'p',       // protocol name
            0x03,                                           // level 3: 3.1
            0x00,                                           // connect flags
            0x00, 0x00,                                     // keep alive 0
            0x00, 0x01, 'c' };                              // client id
        var connect = new Connect(V3_1, "c", false, 0, Optional.empty(), Optional.empty(), Optional.empty(),
                Properties.NONE);
        assertEquals(connect, decode(V3, vector));
        assertArrayEquals(bytes(vector), encoded(connect, V3));
    }

    @Test
    void bridgeBitIsDecodedAndEncodedIn311And31() {
        // A Mosquitto bridge's CONNECT with try_private: the level's top bit set.
        assertBridgeRoundTrip(V3, 0x10, 0x0D, 0, 4, 'M', 'Q', 'T', 'T',
                0x84,                                   // level 4 with the bridge bit
                0x02, 0, 60, 0, 1, 'b');
        assertBridgeRoundTrip(V3_1, 0x10, 0x0F, 0, 6, 'M', 'Q', 'I', 's', 'd', 'p',
                0x83,                                   // level 3 with the bridge bit
                0x02, 0, 60, 0, 1, 'b');
        assertEquals(V3, ConnectCodec.readVersion(ByteBuffer.wrap(bytes(0, 4, 'M', 'Q', 'T', 'T', 0x84))));
    }

    /** {@code vector}, a bridge "b"'s CONNECT in {@code version}, decodes to it and is what it encodes to. */
    private static void assertBridgeRoundTrip(ProtocolVersion version, int... vector) {
        var bridge = new Connect(version, "b", true, 60, Optional.empty(), Optional.empty(), Optional.empty(),
                Properties.NONE, true);
        assertEquals(bridge, decode(V3, vector));
        assertArrayEquals(bytes(vector), encoded(bridge, V3));
    }

    @Test
    void bridgeBitIsOnlyFor31And311() {
        // [MQTT-3.1.2-2]: Mosquitto lets 0x85 through as MQTT 5 but misreads it (no properties); refused here.
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 13, 0, 4, 'M', 'Q', 'T', 'T', 0x85, 0x02, 0, 60, 0, 0, 0);
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 0x83, 0x02, 0, 60, 0, 0);  // MQTT is level 4 or 5
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 14, 0, 6, 'M', 'Q', 'I', 's', 'd', 'p', 0x84, 0x02, 0, 60, 0, 0);  // MQIsdp is 3 only
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 0x80, 0x02, 0, 60, 0, 0);
        assertThrows(IllegalArgumentException.class, () -> new Connect(V5, "b", true, 60, Optional.empty(),
                Optional.empty(), Optional.empty(), Properties.NONE, true));
    }

    @Test
    void emptyClientIdIsLeftToTheBroker() {
        var connect = (Connect) decode(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60,
                0, 0);                                  // client id ""
        assertEquals("", connect.clientId());
    }

    @Test
    void unknownProtocolNameIsMalformed() {
        assertMalformed(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'X', 4, 0x02, 0, 60, 0, 0);  // [MQTT-3.1.2-1]
    }

    @Test
    void knownNameWithUnknownLevelIsUnsupportedProtocolVersion() {
        // [MQTT-3.1.2-2]
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 12, 0, 4, 'M', 'Q', 'T', 'T',
                6,                                      // level 6
                0x02, 0, 60, 0, 0);
        assertRefused(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, V3,
                0x10, 14, 0, 6, 'M', 'Q', 'I', 's', 'd', 'p',
                4,                                      // MQIsdp is level 3 only
                0x02, 0, 60, 0, 0);
    }

    @Test
    void reservedConnectFlagIsMalformed() {
        assertMalformed(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x03,                                   // clean session + reserved bit 0 [MQTT-3.1.2-3]
                0, 60, 0, 0);
    }

    @Test
    void willQosWithoutWillIsMalformed() {
        assertMalformed(V5, 0x10, 13, 0, 4, 'M', 'Q', 'T', 'T', 5,
                0x08,                                   // Will QoS 1, Will Flag 0 [MQTT-3.1.2-11] (5.0)
                0, 60, 0, 0, 0);
        assertMalformed(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x10,                                   // Will QoS 2, Will Flag 0 [MQTT-3.1.2-13] (3.1.1)
                0, 60, 0, 0);
    }

    @Test
    void willRetainWithoutWillIsMalformed() {
        assertMalformed(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x20,                                   // Will Retain, Will Flag 0 [MQTT-3.1.2-13] (5.0), [MQTT-3.1.2-15] (3.1.1)
                0, 60, 0, 0);
    }

    @Test
    void willQos3IsMalformed() {
        assertMalformed(V3, 0x10, 18, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x1C,                                   // Will Flag, Will QoS 3 [MQTT-3.1.2-12] (5.0), [MQTT-3.1.2-14] (3.1.1)
                0, 60, 0, 0,
                0, 1, 'w', 0, 1, 'x');
    }

    @Test
    void passwordWithoutUserNameIsMalformedIn311() {
        assertMalformed(V3, 0x10, 15, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x42,                                   // password, clean session, no user name [MQTT-3.1.2-22] (3.1.1)
                0, 60, 0, 0,
                0, 1, 'p');
    }

    @Test
    void passwordWithoutUserNameIsAllowedIn5() {
        var connect = (Connect) decode(V3, 0x10, 16, 0, 4, 'M', 'Q', 'T', 'T', 5,
                0x42,                                   // password, clean start, no user name (3.1.2.9)
                0, 60, 0, 0, 0,
                0, 1, 'p');
        assertEquals(Optional.of(Binary.utf8("p")), connect.password());
    }

    @Test
    void willPropertyInConnectPropertiesIsMalformed() {
        assertMalformed(V3, 0x10, 18, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60,
                5, 0x18, 0, 0, 0, 5,                    // Will Delay Interval among the CONNECT properties
                0, 0);
    }

    @Test
    void connectPropertyInWillPropertiesIsMalformed() {
        assertMalformed(V3, 0x10, 22, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x06, 0, 60, 0, 0, 0,
                3, 0x21, 0, 20,                         // Receive Maximum among the Will properties
                0, 1, 'w', 0, 0);
    }

    @Test
    void wildcardWillTopicIsTopicNameInvalid() {
        assertRefused(ReasonCode.TOPIC_NAME_INVALID, V3, 0x10, 18, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x06, 0, 60, 0, 0,
                0, 1, '#',                              // will topic "#" [MQTT-3.1.3-11]
                0, 1, 'x');
    }

    @Test
    void truncatedConnectIsMalformed() {
        assertMalformed(V3, 0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4,
                0x82,                                   // user name flag, but no user name follows
                0, 60, 0, 0);
    }

    @Test
    void reservedFlagsInFixedHeaderAreMalformed() {
        assertMalformed(V3, 0x11, 12, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x02, 0, 60, 0, 0);  // [MQTT-2.1.3-1]
    }

    @Test
    void versionIsReadWithoutMovingThePosition() {
        var body = ByteBuffer.wrap(bytes(0, 4, 'M', 'Q', 'T', 'T', 5));
        assertEquals(V5, ConnectCodec.readVersion(body));
        assertEquals(0, body.position());
        assertThrows(MalformedPacketException.class, () -> ConnectCodec.readVersion(ByteBuffer.wrap(bytes(0, 4, 'M'))));
    }
}
