package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.assertRefused;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.UserProperty;
import io.pekquitto.protocol.ReasonCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Property rules (2.2.2), tested through the DISCONNECT and CONNACK that carry them. */
class PropertiesCodecTest {
    /** A 5.0 DISCONNECT (Normal) with the given property bytes, which must hold fewer than 126. */
    private static int[] disconnectWith(int... properties) {
        var vector = new int[4 + properties.length];
        vector[0] = 0xE0;                       // DISCONNECT
        vector[1] = 2 + properties.length;      // remaining length
        vector[2] = 0x00;                       // Normal disconnection
        vector[3] = properties.length;          // property length
        System.arraycopy(properties, 0, vector, 4, properties.length);
        return vector;
    }

    /** A 5.0 CONNACK (Success) with the given property bytes. */
    private static int[] connAckWith(int... properties) {
        var vector = new int[5 + properties.length];
        vector[0] = 0x20;
        vector[1] = 3 + properties.length;
        vector[2] = 0x00;                       // acknowledge flags
        vector[3] = 0x00;                       // Success
        vector[4] = properties.length;
        System.arraycopy(properties, 0, vector, 5, properties.length);
        return vector;
    }

    @Test
    void userPropertiesMayRepeat() {
        var disconnect = (Disconnect) decode(V5, disconnectWith(
                0x26, 0, 1, 'k', 0, 1, '1',     // User Property k=1
                0x26, 0, 1, 'k', 0, 1, '2'));   // User Property k=2
        assertEquals(List.of(new UserProperty("k", "1"), new UserProperty("k", "2")),
                disconnect.properties().userProperties());
    }

    @Test
    void unknownIdentifierIsMalformed() {
        assertMalformed(V5, disconnectWith(0x04, 0));  // 0x04 is not a property (2.2.2.2)
    }

    @Test
    void propertyOutsideItsScopeIsMalformed() {
        assertMalformed(V5, disconnectWith(0x23, 0, 1));  // Topic Alias in DISCONNECT
    }

    @Test
    void duplicateSingleValuedPropertyIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, disconnectWith(
                0x1F, 0, 1, 'a',                // Reason String
                0x1F, 0, 1, 'b'));              // Reason String again (2.2.2.2)
    }

    @Test
    void propertyLengthRunningPastThePacketIsMalformed() {
        assertMalformed(V5, 0xE0, 3, 0x00, 5, 0x11);  // property length 5, one byte there
    }

    @Test
    void propertyValueRunningPastThePropertiesIsMalformed() {
        assertMalformed(V5, 0xE0, 5, 0x00, 2, 0x11, 0, 0);  // Session Expiry Interval cut at the property length
    }

    @Test
    void receiveMaximumZeroIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x21, 0, 0));  // 3.2.2.3.3
    }

    @Test
    void maximumPacketSizeZeroIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x27, 0, 0, 0, 0));  // 3.2.2.3.6
    }

    @Test
    void flagPropertiesOtherThanZeroOrOneAreProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x24, 2));  // Maximum QoS 2 (3.2.2.3.4)
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x25, 2));  // Retain Available
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x28, 2));  // Wildcard Subscription Available
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x29, 2));  // Subscription Identifiers Available
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, connAckWith(0x2A, 2));  // Shared Subscription Available
        // Payload Format Indicator (PUBLISH): 3.3.2.3.2
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x30, 6, 0, 1, 't', 2, 0x01, 2);
        // Request Problem Information (CONNECT): 3.1.2.11.7
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x10, 15, 0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60,
                2, 0x17, 2, 0, 0);
    }

    @Test
    void topicAliasMaximumMayBeAnything() {
        var connAck = (ConnAck) decode(V5, connAckWith(0x22, 0, 0));  // Topic Alias Maximum 0
        assertEquals(0, connAck.properties().topicAliasMaximum());
    }
}
