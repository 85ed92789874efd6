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
    private static Message withExpiry(long seconds) {
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, seconds).build();
        return new Message("t", Binary.utf8("x"), QoS.AT_LEAST_ONCE, false, properties);
    }

    @Test
    void theForwardedExpiryIsWhatIsLeft() {  // [MQTT-3.3.2-6]
        var message = new Message("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, Properties.NONE, "",
                System.nanoTime() + 4_500_000_000L);
        assertEquals(Optional.of(5L), message.toPublish(1, false).properties().messageExpiryInterval(),
                "4.5 s left is sent as 5: rounded up, never 0 while alive");
    }

    @Test
    void aMessageExpiresWhenItsIntervalHasPassed() {  // [MQTT-3.3.2-5]
        var message = withExpiry(10);
        assertFalse(message.isExpired(System.nanoTime()));
        assertTrue(message.isExpired(System.nanoTime() + 10_000_000_001L));
    }

    @Test
    void aMessageWithoutExpiryNeverExpiresAndKeepsItsProperties() {
        var message = new Message("t", Binary.EMPTY, QoS.AT_MOST_ONCE, false, Properties.NONE);
        assertFalse(message.isExpired(Long.MAX_VALUE - 1));
        assertEquals(Properties.NONE, message.toPublish(0, false).properties());
    }

    @Test
    void expiredQueuedMessagesAreNotSent() {
        var session = new Session("c", 10, false);
        session.enqueue(new Message("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, Properties.NONE, "",
                System.nanoTime() - 1), false);
        session.enqueue(withExpiry(60), false);
        var sent = new java.util.ArrayList<io.pekquitto.protocol.Packet>();
        session.drain(10, sent::add);
        assertEquals(1, sent.size());
    }

    @Test
    void maxQueuedBytesLimitsThePayloadQueued() {
        var session = new Session("c", 100, 5, false);
        assertTrue(session.enqueue(new Message("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE), true));
        assertFalse(session.enqueue(new Message("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE), true));
        assertEquals(1, session.droppedMessages());
        session.drain(10, p -> { });
        assertTrue(session.enqueue(new Message("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE), true),
                "sending frees the bytes");
    }
}
