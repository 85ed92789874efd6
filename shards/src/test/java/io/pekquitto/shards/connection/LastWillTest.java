package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.Will;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The will a connection leaves (3.1.2.5, 3.1.3.2): the message as published, and its delay. */
class LastWillTest {
    private static final long NOW = 7_000_000_000L;

    private static Will will(Properties properties) {
        return new Will("w/t", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, true, properties);
    }

    @Test
    void noWillNoMessage() {
        assertTrue(LastWill.of(Optional.empty(), ProtocolVersion.MQTT_5, NOW).isEmpty());
    }

    @Test
    void theWillIsPublishedWithItsTopicPayloadQosAndRetain() {  // [MQTT-3.1.2-8]
        var delayed = LastWill.of(Optional.of(will(Properties.NONE)), ProtocolVersion.MQTT_3_1_1, NOW).orElseThrow();
        assertEquals("w/t", delayed.message().topic());
        assertEquals("gone", delayed.message().payload().asUtf8());
        assertEquals(QoS.AT_LEAST_ONCE, delayed.message().qos());
        assertTrue(delayed.message().retain());
        assertEquals(0, delayed.delaySeconds());
    }

    @Test
    void theWillDelayIntervalIsTheDelayAndNotAPropertyOfThePublish() {  // 3.1.3.2.2, Table 2-4
        var properties = Properties.builder().set(PropertyId.WILL_DELAY_INTERVAL, 30L)
                .set(PropertyId.CONTENT_TYPE, "text/plain").build();
        var delayed = LastWill.of(Optional.of(will(properties)), ProtocolVersion.MQTT_5, NOW).orElseThrow();
        assertEquals(30, delayed.delaySeconds());
        assertTrue(delayed.message().properties().willDelayInterval() == 0, "removed from the PUBLISH");
        assertEquals(Optional.of("text/plain"), delayed.message().properties().contentType(), "the other properties go with it");
    }

    @Test
    void aWillMessageExpiryCountsFromWhenTheConnectionEnded() {  // [MQTT-3.3.2-5] for the will's Message Expiry Interval
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L).build();
        var delayed = LastWill.of(Optional.of(will(properties)), ProtocolVersion.MQTT_5, NOW).orElseThrow();
        assertTrue(!delayed.message().isExpired(NOW + 9_000_000_000L) && delayed.message().isExpired(NOW + 10_000_000_000L));
    }
}
