package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client side of 4.3.2 and 4.3.3 towards the remote, and 4.4's resend after a reconnect. */
class OutboundWindowTest {

    /** The window's PUBLISH for a message on {@code topic} (its payload the topic too), numbered by the window. */
    private static <H> Publish send(OutboundWindow<H> window, H handle, String topic, QoS qos) {
        return window.send(handle, topic, Binary.utf8(topic), qos, false, Properties.NONE);
    }

    @Test
    void numbersEachPublishAndReleasesItsHandleOnlyAtTheRightAcknowledgement() {
        var window = new OutboundWindow<String>(10);
        var one = send(window, "one", "a", QoS.AT_LEAST_ONCE);
        var two = send(window, "two", "b", QoS.EXACTLY_ONCE);
        assertEquals(1, one.packetId());
        assertEquals(2, two.packetId());
        assertNull(window.acknowledged(two.packetId()), "a PUBACK for a QoS 2 message is not its end");
        assertEquals("one", window.acknowledged(one.packetId()));
        assertNull(window.acknowledged(one.packetId()), "acknowledged once");
        assertEquals(new PubRel(2), window.received(two.packetId()));  // [MQTT-4.3.3-4]
        assertEquals(1, window.size());
        assertEquals("two", window.completed(two.packetId()));
        assertEquals(0, window.size());
    }

    @Test
    void isFullAtItsMaximumWhichAnMqtt5ReceiveMaximumLowers() {
        var window = new OutboundWindow<String>(3);
        window.limitTo(2);
        send(window, "a", "a", QoS.AT_LEAST_ONCE);
        assertFalse(window.isFull());
        send(window, "b", "b", QoS.AT_LEAST_ONCE);
        assertTrue(window.isFull());
        assertThrows(IllegalStateException.class, () -> send(window, "c", "c", QoS.AT_LEAST_ONCE));
    }

    @Test
    void packetIdsInUseAreSkippedWhenTheyWrap() {
        var window = new OutboundWindow<Integer>(2);
        var first = send(window, 0, "first", QoS.AT_LEAST_ONCE);
        for (int i = 0; i < 0xFFFF - 1; i++) {
            var next = send(window, i, "t", QoS.AT_LEAST_ONCE);
            window.acknowledged(next.packetId());
        }
        var wrapped = send(window, -1, "t", QoS.AT_LEAST_ONCE);
        assertEquals(2, wrapped.packetId(), "1 is still in flight [MQTT-2.2.1-3]");
        assertEquals(1, first.packetId());
    }

    @Test
    void aReconnectSendsEverythingAgainInOrderWithDupAndPubRelPastPubRec() {
        var window = new OutboundWindow<String>(10);
        var a = send(window, "a", "a", QoS.AT_LEAST_ONCE);
        var b = send(window, "b", "b", QoS.EXACTLY_ONCE);
        var c = send(window, "c", "c", QoS.EXACTLY_ONCE);
        window.received(b.packetId());
        var done = new ArrayList<String>();
        var again = window.resend(true, done);
        assertEquals(List.of(a.packetId(), b.packetId(), c.packetId()), again.stream().map(packet -> packet instanceof Publish p
                ? p.packetId() : ((PubRel) packet).packetId()).toList());
        assertTrue(((Publish) again.get(0)).dup(), "[MQTT-4.4.0-1] DUP on a resent PUBLISH");
        assertEquals(new PubRel(b.packetId()), again.get(1));
        assertTrue(((Publish) again.get(2)).dup());
        assertEquals(List.of(), done);
    }

    @Test
    void withoutTheRemotesSessionWhatWasPastPubRecIsDone() {
        var window = new OutboundWindow<String>(10);
        var a = send(window, "a", "a", QoS.EXACTLY_ONCE);
        send(window, "b", "b", QoS.AT_LEAST_ONCE);
        window.received(a.packetId());
        var done = new ArrayList<String>();
        var again = window.resend(false, done);
        assertEquals(List.of("a"), done);
        assertEquals(1, again.size());
        assertEquals("b", ((Publish) again.get(0)).topic());
        assertEquals(1, window.size());
    }
}
