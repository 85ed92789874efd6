package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MessageTest {
    private static final long NOW = 1_000_000_000_000L;

    private static Message withExpiry(long seconds) {
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, seconds).build();
        return Message.received("t", Binary.utf8("x"), QoS.AT_LEAST_ONCE, false, properties, NOW);
    }

    @Test
    void theForwardedExpiryIsWhatIsLeft() {  // [MQTT-3.3.2-6]
        var message = new Message("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, Properties.NONE, "",
                NOW + 4_500_000_000L);
        assertEquals(Optional.of(5L), message.toPublish(1, false, NOW).properties().messageExpiryInterval(),
                "4.5 s left is sent as 5: rounded up, never 0 while alive");
    }

    @Test
    void aMessageExpiresWhenItsIntervalHasPassed() {  // [MQTT-3.3.2-5]
        var message = withExpiry(10);
        assertFalse(message.isExpired(NOW + 9_999_999_999L));
        assertTrue(message.isExpired(NOW + 10_000_000_000L));
    }

    @Test
    void aMessageWithoutExpiryNeverExpiresAndKeepsItsProperties() {
        var message = Message.received("t", Binary.EMPTY, QoS.AT_MOST_ONCE, false, Properties.NONE, NOW);
        assertFalse(message.isExpired(Long.MAX_VALUE - 1));
        assertEquals(Properties.NONE, message.toPublish(0, false, NOW).properties());
    }

    @Test
    void expiredQueuedMessagesAreNotSent() {
        var session = new Session("c", 10, false);
        session.enqueue(new Message("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, Properties.NONE, "", NOW - 1), false);
        session.enqueue(withExpiry(60), false);
        var sent = new java.util.ArrayList<io.pekquitto.protocol.Publish>();
        session.drain(10, NOW, sent::add);
        assertEquals(1, sent.size());
    }

    @Test
    void maxQueuedBytesLimitsThePayloadQueued() {
        var session = new Session("c", 100, 5, false);
        assertTrue(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true));
        assertFalse(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true));
        assertEquals(1, session.droppedMessages());
        session.drain(10, NOW, p -> { });
        assertTrue(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true),
                "sending frees the bytes");
    }
}
