package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.memory.MemoryBudget;
import java.util.List;
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
                NOW + 4_500_000_000L, NOW);
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
        session.enqueue(new Message("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, Properties.NONE, "", NOW - 1, NOW - 2), false);
        session.enqueue(withExpiry(60), false);
        var sent = new java.util.ArrayList<io.pekquitto.protocol.Publish>();
        session.drain(10, NOW, sent::add);
        assertEquals(1, sent.size());
    }

    @Test
    void maxQueuedBytesLimitsThePayloadQueued() {
        var session = new Session("c", 100, 5, false, MemoryBudget.NONE);
        assertTrue(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true));
        assertFalse(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true));
        assertEquals(1, session.droppedMessages());
        session.drain(10, NOW, p -> { });
        assertTrue(session.enqueue(Message.received("t", Binary.utf8("abc"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW), true),
                "sending frees the bytes");
    }

    @Test
    void theForwardedExpiryDecreasesWithTheTimeWaited() {  // [MQTT-3.3.2-6 (5.0)]
        var message = withExpiry(60);
        assertEquals(Optional.of(60L), message.toPublish(1, false, NOW).properties().messageExpiryInterval());
        assertEquals(Optional.of(40L), message.toPublish(1, false, NOW + 20_000_000_000L).properties().messageExpiryInterval());
    }

    @Test
    void expiryHoldsWhenTheNanosecondClockWraps() {  // System.nanoTime may be near Long.MAX_VALUE
        long now = Long.MAX_VALUE - 1_000_000_000L;
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L).build();
        var message = Message.received("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, properties, now);
        assertFalse(message.isExpired(now + 59_000_000_000L));
        assertTrue(message.isExpired(now + 60_000_000_000L));  // [MQTT-3.3.2-5 (5.0)]
        assertEquals(Optional.of(30L), message.toPublish(1, false, now + 30_000_000_000L).properties().messageExpiryInterval());
    }

    @Test
    void rewritingTheExpiryKeepsTheOtherProperties() {  // [MQTT-3.3.2-17 (5.0)], [MQTT-3.3.2-20 (5.0)]: forwarded unaltered
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 10L)
                .set(PropertyId.CONTENT_TYPE, "text/plain").addUserProperty("k", "v").build();
        var message = Message.received("t", Binary.EMPTY, QoS.AT_LEAST_ONCE, false, properties, NOW);
        var sent = message.toPublish(1, false, NOW).properties();
        assertEquals(Optional.of("text/plain"), sent.contentType());
        assertEquals(properties.userProperties(), sent.userProperties());
    }

    @Test
    void aPublishCarriesThePacketIdentifierDupAndTheMessagesQosAndRetain() {
        var message = Message.received("a/b", Binary.utf8("x"), QoS.EXACTLY_ONCE, true, Properties.NONE, NOW);
        var publish = message.toPublish(7, true, NOW);
        assertEquals(new Publish("a/b", Binary.utf8("x"), QoS.EXACTLY_ONCE, true, true, 7, Properties.NONE), publish);
    }

    @Test
    void ofTakesTheResolvedTopicAndTheGivenProperties() {  // the Topic Alias belongs to one connection (3.3.2.3.4)
        var aliased = Properties.builder().set(PropertyId.TOPIC_ALIAS, 3).set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 5L).build();
        var publish = new Publish("", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true, false, 1, aliased);
        var resolved = aliased.toBuilder().remove(PropertyId.TOPIC_ALIAS).build();
        var message = Message.of(publish, "a/b", resolved, NOW);
        assertEquals(new Message("a/b", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true, resolved, "", NOW + 5_000_000_000L, NOW),
                message);
    }

    @Test
    void aSubscriberThatChangesNothingGetsThisVeryMessage() {
        var message = withExpiry(10);
        assertSame(message, message.forSubscriber(message.qos(), message.retain(), message.properties()));
        assertSame(message, message.viaShared(""));
    }

    @Test
    void aSubscribersCopyChangesOnlyWhatItAsksFor() {
        var shared = withExpiry(10).viaShared("$share/g/t");
        var identified = shared.properties().toBuilder().addSubscriptionIdentifier(4).build();
        var copy = shared.forSubscriber(QoS.AT_MOST_ONCE, true, identified);
        assertNotSame(shared, copy);
        assertEquals(new Message("t", shared.payload(), QoS.AT_MOST_ONCE, true, identified, "$share/g/t",
                shared.expiryDeadline(), shared.receivedAt()), copy);
        assertSame(shared.payload(), copy.payload(), "payloads are shared, not copied");
        assertEquals(List.of(4), copy.properties().subscriptionIdentifiers());
    }

    @Test
    void viaSharedMarksAndUnmarksTheSharedSubscription() {
        var message = withExpiry(10);
        var shared = message.viaShared("$share/g/t");
        assertTrue(shared.isShared());
        assertEquals("$share/g/t", shared.sharedFilter());
        assertSame(shared, shared.viaShared("$share/g/t"));
        var unmarked = shared.viaShared("");
        assertFalse(unmarked.isShared());
        assertEquals(message, unmarked);
    }
}
