package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionTest {
    private final Session session = new Session("client", 3, false);
    private final List<Packet> sent = new ArrayList<>();

    private static Message message(String payload, QoS qos) {
        return Message.received("t", Binary.utf8(payload), qos, false, Properties.NONE, 0);
    }

    @Test
    void drainNeverExceedsTheReceiveMaximum() {  // [MQTT-4.9.0-2]
        for (int i = 0; i < 3; i++) session.enqueue(message("m" + i, QoS.AT_LEAST_ONCE), false);
        session.drain(2, 0, sent::add);
        assertEquals(2, sent.size());
        assertEquals(1, session.queuedCount());
        var first = (Publish) sent.get(0);
        assertTrue(session.acknowledge(first.packetId()));
        session.drain(2, 0, sent::add);
        assertEquals(3, sent.size());
        assertEquals("m2", ((Publish) sent.get(2)).payload().asUtf8());
    }

    @Test
    void aSessionHasAQueueAndMessagesInFlightOfItsOwnFromItsFirstMessageOnly() {  // an idle client's pays for neither
        var idle = new Session("idle", 3, false);
        assertSame(QueuedMessages.NONE, idle.queue);
        assertSame(InflightMessages.NONE, idle.inflight);
        session.enqueue(message("queued", QoS.AT_LEAST_ONCE), true);
        session.drain(1, 0, sent::add);
        session.enqueue(message("after", QoS.AT_LEAST_ONCE), false);
        assertEquals(1, session.inflightCount());
        assertEquals(1, session.queuedCount());
        assertEquals(0, idle.inflightCount() + idle.queuedCount(), "the shared empty ones stay empty");
        assertEquals(0, QueuedMessages.NONE.size() + InflightMessages.NONE.size());
    }

    @Test
    void queueBeyondMaxQueuedMessagesDropsAndCounts() {
        for (int i = 0; i < 5; i++) session.enqueue(message("m" + i, QoS.AT_LEAST_ONCE), true);
        assertEquals(3, session.queuedCount());
        assertEquals(2, session.droppedMessages());
    }

    @Test
    void offlineQos0IsNotQueuedUnlessConfigured() {
        assertFalse(session.enqueue(message("zero", QoS.AT_MOST_ONCE), true));
        var keeping = new Session("c", 3, true);
        assertTrue(keeping.enqueue(message("zero", QoS.AT_MOST_ONCE), true));
    }

    @Test
    void resendSetsDupOnUnacknowledgedPublishesAndResendsPubRelInOrder() {  // [MQTT-4.4.0-1]
        session.enqueue(message("one", QoS.EXACTLY_ONCE), false);
        session.enqueue(message("two", QoS.AT_LEAST_ONCE), false);
        session.drain(10, 0, sent::add);
        int first = ((Publish) sent.get(0)).packetId();
        assertTrue(session.received(first));
        var resent = new ArrayList<Packet>();
        session.resend(0, resent::add);
        assertEquals(new PubRel(first), resent.get(0));
        var second = (Publish) resent.get(1);
        assertTrue(second.dup());
        assertEquals("two", second.payload().asUtf8());
    }

    @Test
    void qos2ExchangeFreesItsSlotOnlyOnPubComp() {
        session.enqueue(message("m", QoS.EXACTLY_ONCE), false);
        session.drain(1, 0, sent::add);
        int id = ((Publish) sent.get(0)).packetId();
        assertFalse(session.acknowledge(id), "a PUBACK does not complete a QoS 2 message");
        assertFalse(session.complete(id), "PUBCOMP before PUBREC is unknown");
        assertTrue(session.received(id));
        assertEquals(1, session.inflightCount());
        assertTrue(session.complete(id));
        assertEquals(0, session.inflightCount());
    }

    @Test
    void packetIdentifiersInUseAreNotReused() {  // [MQTT-2.2.1-4]
        var big = new Session("c", 100_000, false);
        for (int i = 0; i < 65_535; i++) big.enqueue(message("m", QoS.AT_LEAST_ONCE), false);
        big.drain(65_535, 0, sent::add);
        var ids = new java.util.HashSet<Integer>();
        for (var packet : sent) ids.add(((Publish) packet).packetId());
        assertEquals(65_535, ids.size());
        assertFalse(ids.contains(0));
    }

    @Test
    void aResentQos2PublishIsNotDeliveredTwice() {  // [MQTT-4.3.3-9]
        assertTrue(session.firstReceipt(7));
        assertFalse(session.firstReceipt(7));
        assertTrue(session.release(7));
        assertTrue(session.firstReceipt(7), "after PUBREL the identifier may be reused");
    }
}
