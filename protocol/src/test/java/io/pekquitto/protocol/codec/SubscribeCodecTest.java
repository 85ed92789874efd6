package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.assertMalformed;
import static io.pekquitto.protocol.codec.Vectors.assertRefused;
import static io.pekquitto.protocol.codec.Vectors.decode;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.Unsubscribe;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SUBSCRIBE and UNSUBSCRIBE. */
class SubscribeCodecTest {
    @Test
    void v311SubscribeIsDecoded() {
        var subscribe = decode(V3,
                0x82, 8,                // SUBSCRIBE, flags 0010
                0, 1,                   // packet identifier
                0, 3, 'a', '/', '#',    // topic filter "a/#"
                0x01);                  // requested QoS 1
        assertEquals(new Subscribe(1, List.of(new Subscription("a/#", SubscriptionOptions.of(QoS.AT_LEAST_ONCE))),
                Properties.NONE), subscribe);
    }

    @Test
    void v5SubscriptionOptionsAreDecoded() {
        var subscribe = decode(V5,
                0x82, 7, 0, 1,
                0,                      // property length
                0, 1, 'a',
                0b0010_1110);           // Retain Handling 2, Retain As Published, No Local, QoS 2
        assertEquals(new SubscriptionOptions(QoS.EXACTLY_ONCE, true, true, 2),
                ((Subscribe) subscribe).subscriptions().get(0).options());
    }

    @Test
    void invalidTopicFilterIsLeftToTheBroker() {
        var subscribe = (Subscribe) decode(V3, 0x82, 10, 0, 1, 0, 5, 'a', '/', '#', '/', 'b', 0);
        assertEquals("a/#/b", subscribe.subscriptions().get(0).topicFilter());  // answered 0x80/0x8F in SUBACK
    }

    @Test
    void subscribeWithoutEntriesIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V3, 0x82, 2, 0, 1);     // [MQTT-3.8.3-3]
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x82, 3, 0, 1, 0);  // [MQTT-3.8.3-3]
    }

    @Test
    void wrongFlagsAreMalformed() {
        assertMalformed(V3, 0x80, 6, 0, 1, 0, 1, 'a', 0);  // SUBSCRIBE must be 0010 [MQTT-3.8.1-1], [MQTT-2.1.3-1]
    }

    @Test
    void reservedOptionBitsAreMalformedIn5() {
        assertMalformed(V5, 0x82, 7, 0, 1, 0, 0, 1, 'a', 0b0100_0000);  // bit 6 [MQTT-3.8.3-5]
    }

    @Test
    void bitsAboveQosAreMalformedIn311() {
        assertMalformed(V3, 0x82, 6, 0, 1, 0, 1, 'a', 0b0000_0100);  // No Local is 5.0 only [MQTT-3.8.3-4] (3.1.1)
    }

    @Test
    void maximumQos3IsAProtocolErrorIn5() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x82, 7, 0, 1, 0, 0, 1, 'a', 0x03);  // 3.8.3.1
    }

    @Test
    void qos3IsMalformedIn311() {
        assertMalformed(V3, 0x82, 6, 0, 1, 0, 1, 'a', 0x03);  // reserved value (3.8.3.1 of 3.1.1)
    }

    @Test
    void retainHandling3IsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x82, 7, 0, 1, 0, 0, 1, 'a', 0b0011_0000);  // 3.8.3.1
    }

    @Test
    void twoSubscriptionIdentifiersAreProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x82, 11, 0, 1,
                4, 0x0B, 1, 0x0B, 2,    // two Subscription Identifiers (3.8.2.1.2)
                0, 1, 'a', 0);
    }

    @Test
    void subscriptionIdentifierZeroIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0x82, 9, 0, 1,
                2, 0x0B, 0,             // Subscription Identifier 0 (3.8.2.1.2)
                0, 1, 'a', 0);
    }

    @Test
    void unsubscribeIsDecoded() {
        assertEquals(new Unsubscribe(2, List.of("a", "b/+"), Properties.NONE),
                decode(V3, 0xA2, 10, 0, 2, 0, 1, 'a', 0, 3, 'b', '/', '+'));
    }

    @Test
    void unsubscribeWithoutFiltersIsProtocolError() {
        assertRefused(ReasonCode.PROTOCOL_ERROR, V3, 0xA2, 2, 0, 2);     // [MQTT-3.10.3-2]
        assertRefused(ReasonCode.PROTOCOL_ERROR, V5, 0xA2, 3, 0, 2, 0);  // [MQTT-3.10.3-2]
    }

    @Test
    void unsubscribeWithWrongFlagsIsMalformed() {
        assertMalformed(V3, 0xA0, 5, 0, 2, 0, 1, 'a');  // must be 0010 [MQTT-3.10.1-1], [MQTT-2.1.3-1]
    }
}
