package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.assertRefused;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static io.pekquitto.protocol.codec.Vectors.encoded;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublishCodecTest {
    @Test
    void qos1PublishIsDecodedAndEncoded() {
        int[] vector = {
            0x3B, 9,                    // PUBLISH, DUP, QoS 1, RETAIN
            0, 3, 'a', '/', 'b',        // topic "a/b"
            0x12, 0x34,                 // packet identifier
            'h', 'i' };                 // payload
        var publish = new Publish("a/b", Binary.utf8("hi"), QoS.AT_LEAST_ONCE, true, true, 0x1234, Properties.NONE);
        assertEquals(publish, decode(V3, vector));
        assertArrayEquals(bytes(vector), encoded(publish, V3));
    }

    @Test
    void payloadIsCopiedOutOfTheFedBuffer() {
        var fed = bytes(0x30, 4, 0, 1, 'a', 'x');
        var reader = new PacketReader(100);
        reader.feed(ByteBuffer.wrap(fed));
        var publish = (Publish) reader.poll();
        fed[5] = 'y';
        assertEquals(Binary.utf8("x"), publish.payload());
    }

    @Test
    void v5PublishWithSubscriptionIdentifiersIsDecoded() {
        var publish = decode(V5,
                0x30, 14,               // PUBLISH QoS 0
                0, 1, 't',              // topic "t"
                8,                      // property length
                0x0B, 0x01,             //   Subscription Identifier 1
                0x0B, 0x80, 0x01,       //   Subscription Identifier 128: repeats are allowed in PUBLISH
                0x23, 0x00, 0x07,       //   Topic Alias 7
                'p', 'l');              // payload
        assertEquals(new Publish("t", Binary.utf8("pl"), QoS.AT_MOST_ONCE, false, false, 0,
                Properties.builder().addSubscriptionIdentifier(1).addSubscriptionIdentifier(128)
                        .set(PropertyId.TOPIC_ALIAS, 7).build()), publish);
    }

    @Test
    void qos3IsMalformed() {
        assertMalformed(V3, 0x36, 5, 0, 1, 'a', 0, 1);  // both QoS bits set [MQTT-3.3.1-4]
    }

    @Test
    void dupWithQos0IsMalformed() {
        assertMalformed(V3, 0x38, 3, 0, 1, 'a');  // DUP, QoS 0 [MQTT-3.3.1-2]
    }

    @Test
    void packetIdZeroIsMalformed() {
        assertMalformed(V3, 0x32, 5, 0, 1, 'a', 0, 0);  // QoS 1, packet identifier 0 [MQTT-2.2.1-3]
    }

    @Test
    void wildcardInTopicIsTopicNameInvalid() {
        assertRefused(ReasonCode.TOPIC_NAME_INVALID, V3, 0x30, 5, 0, 3, 'a', '/', '+');  // [MQTT-3.3.2-2]
        assertRefused(ReasonCode.TOPIC_NAME_INVALID, V5, 0x30, 4, 0, 1, '#', 0);         // [MQTT-3.3.2-2]
    }

    @Test
    void emptyTopicIsMalformedIn311() {
        assertMalformed(V3, 0x30, 2, 0, 0);  // [MQTT-4.7.3-1]
    }

    @Test
    void emptyTopicIsAllowedIn5ForATopicAlias() {
        var publish = (Publish) decode(V5, 0x30, 6, 0, 0, 3, 0x23, 0, 1);  // topic "", Topic Alias 1
        assertEquals("", publish.topic());
        assertEquals(java.util.Optional.of(1), publish.properties().topicAlias());
    }

    @Test
    void topicThatIsNotUtf8IsMalformed() {
        assertMalformed(V3, 0x30, 5, 0, 3, 0xED, 0xA0, 0x80);  // a surrogate [MQTT-1.5.4-1]
        assertMalformed(V3, 0x30, 4, 0, 2, 'a', 0);            // U+0000 [MQTT-1.5.4-2]
    }

    @Test
    void topicRunningPastTheFrameIsMalformed() {
        assertMalformed(V3, 0x30, 3, 0, 5, 'a');
    }

    @Test
    void propertyOfAnotherPacketIsMalformed() {
        assertMalformed(V5, 0x30, 7, 0, 1, 't', 2, 0x21, 0, 1);  // Receive Maximum in PUBLISH
    }

    @Test
    void encodedV5PublishCarriesItsProperties() {
        var publish = new Publish("t", Binary.EMPTY, QoS.AT_MOST_ONCE, false, false, 0,
                Properties.builder().set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1)
                        .set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L).addSubscriptionIdentifier(3)
                        .addUserProperty("k", "v").build());
        assertArrayEquals(bytes(
                0x30, 20,                       // PUBLISH QoS 0, remaining length 20
                0, 1, 't',                      // topic "t"
                16,                             // property length
                0x01, 1,                        //   Payload Format Indicator
                0x02, 0, 0, 0, 60,              //   Message Expiry Interval
                0x0B, 3,                        //   Subscription Identifier
                0x26, 0, 1, 'k', 0, 1, 'v'),    //   User Property
                encoded(publish, V5));
        assertEquals(List.of(3), publish.properties().subscriptionIdentifiers());
    }
}
