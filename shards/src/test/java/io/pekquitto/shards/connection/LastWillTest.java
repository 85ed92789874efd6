package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.UserProperty;
import io.pekquitto.protocol.Will;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PendingWill;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LastWillTest {
    private static final long NOW = 7_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private static Will will(QoS qos, boolean retain, Properties properties) {
        return new Will("clients/c/status", Binary.utf8("gone"), qos, retain, properties);
    }

    @Test
    void noWillNoMessage() {
        assertTrue(LastWill.of(Optional.empty(), ProtocolVersion.MQTT_5, NOW).isEmpty());
    }

    @Test
    void theWillIsPublishedWithItsTopicPayloadQosAndRetain() {  // 3.1.2.6, [MQTT-3.1.2-17]
        var delayed = LastWill.of(Optional.of(will(QoS.EXACTLY_ONCE, true, Properties.NONE)), ProtocolVersion.MQTT_3_1_1, NOW)
                .orElseThrow();
        var message = delayed.message();
        assertEquals("clients/c/status", message.topic());
        assertEquals("gone", message.payload().asUtf8());
        assertEquals(QoS.EXACTLY_ONCE, message.qos());
        assertTrue(message.retain());
        assertEquals(0, delayed.delaySeconds(), "3.1.1 has no Will Delay Interval");
    }

    @Test
    void theWillDelayIntervalDelaysButIsNotPublished() {  // 3.1.3.2.2; Table 2-4: a Will Property only
        var properties = Properties.builder().set(PropertyId.WILL_DELAY_INTERVAL, 30L).build();
        var delayed = LastWill.of(Optional.of(will(QoS.AT_LEAST_ONCE, false, properties)), ProtocolVersion.MQTT_5, NOW)
                .orElseThrow();
        assertEquals(30, delayed.delaySeconds());
        assertFalse(delayed.message().properties().has(PropertyId.WILL_DELAY_INTERVAL));
    }

    @Test
    void theOtherWillPropertiesTravelWithTheMessage() {  // 3.1.3.2.3-3.1.3.2.8, [MQTT-3.1.3-10] user property order
        var properties = Properties.builder()
                .set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1)
                .set(PropertyId.CONTENT_TYPE, "text/plain")
                .set(PropertyId.RESPONSE_TOPIC, "replies")
                .addUserProperty("b", "2")
                .addUserProperty("a", "1")
                .build();
        var message = LastWill.of(Optional.of(will(QoS.AT_MOST_ONCE, false, properties)), ProtocolVersion.MQTT_5, NOW)
                .orElseThrow().message();
        assertEquals(Optional.of(1), message.properties().payloadFormatIndicator());
        assertEquals(Optional.of("text/plain"), message.properties().contentType());
        assertEquals(Optional.of("replies"), message.properties().responseTopic());
        assertEquals(List.of(new UserProperty("b", "2"), new UserProperty("a", "1")), message.properties().userProperties());
    }

    @Test
    void theWillsMessageExpiryCountsFromWhenItIsMade() {  // 3.1.3.2.4
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L).build();
        var message = LastWill.of(Optional.of(will(QoS.AT_LEAST_ONCE, false, properties)), ProtocolVersion.MQTT_5, NOW)
                .orElseThrow().message();
        assertFalse(message.isExpired(NOW + 59 * SECOND));
        assertTrue(message.isExpired(NOW + 60 * SECOND));
    }

    @Test
    void aDelayedWillsExpiryCountsFromItsPublication() {
        // 3.1.3.2.4: the lifetime "is sent as the Publication Expiry Interval when the Server publishes the Will Message".
        var properties = Properties.builder()
                .set(PropertyId.WILL_DELAY_INTERVAL, 120L)
                .set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L)
                .build();
        var delayed = LastWill.of(Optional.of(will(QoS.AT_LEAST_ONCE, false, properties)), ProtocolVersion.MQTT_5, NOW)
                .orElseThrow();
        long published = NOW + 120 * SECOND;
        // As the shard publishes it once its delay is over.
        var message = PendingWill.delayed(delayed.message(), delayed.delaySeconds(), NOW).messageAt(published);
        assertFalse(message.isExpired(published), "a will delayed longer than its lifetime must still be published");
        assertEquals(Optional.of(60L), message.toPublish(1, false, published).properties().messageExpiryInterval());
    }

    @Test
    void aWillWithoutExpiryNeverExpires() {
        var message = LastWill.of(Optional.of(will(QoS.AT_LEAST_ONCE, false, Properties.NONE)), ProtocolVersion.MQTT_5, NOW)
                .orElseThrow().message();
        assertEquals(Message.NEVER, message.expiryDeadline());
    }
}
