package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import org.junit.jupiter.api.Test;

/** What the remote sends, acknowledged once routed here; QoS 2 routed once per packet id until PUBREL. */
class InboundFlowTest {

    private static Publish publish(int id, QoS qos, boolean dup) {
        return new Publish("t", Binary.utf8("m"), qos, false, dup, qos == QoS.AT_MOST_ONCE ? 0 : id, Properties.NONE);
    }

    @Test
    void acknowledgementsWaitForTheLocalAnswersInOrder() {
        var flow = new InboundFlow();
        flow.linkUp(false);
        assertEquals(InboundFlow.Step.ROUTE_ONLY, flow.received(publish(0, QoS.AT_MOST_ONCE, false), true));
        assertEquals(InboundFlow.Step.ROUTE, flow.received(publish(1, QoS.AT_LEAST_ONCE, false), true));
        assertEquals(InboundFlow.Step.ROUTE, flow.received(publish(2, QoS.EXACTLY_ONCE, false), true));
        assertEquals(2, flow.awaiting());
        assertEquals(new PubAck(1), flow.locallyPublished());
        assertEquals(new PubRec(2), flow.locallyPublished());
        assertNull(flow.locallyPublished());
    }

    @Test
    void aQos2ResendIsRoutedOnceAndAcknowledgedAgainOnlyOnceRouted() {
        var flow = new InboundFlow();
        flow.linkUp(false);
        assertEquals(InboundFlow.Step.ROUTE, flow.received(publish(7, QoS.EXACTLY_ONCE, false), true));
        assertEquals(InboundFlow.Step.NOTHING, flow.received(publish(7, QoS.EXACTLY_ONCE, true), true), "still being routed");
        assertEquals(new PubRec(7), flow.locallyPublished());
        assertEquals(InboundFlow.Step.REPLY, flow.received(publish(7, QoS.EXACTLY_ONCE, true), true));  // [MQTT-4.3.3-9]
        assertEquals(new PubRec(7), flow.reply());
        assertEquals(new PubComp(7), flow.released(7));
        assertEquals(InboundFlow.Step.ROUTE, flow.received(publish(7, QoS.EXACTLY_ONCE, false), true), "a new message after PUBREL");
    }

    @Test
    void whatNoTopicTakesIsAcknowledgedAtOnceAndNotRouted() {
        var flow = new InboundFlow();
        flow.linkUp(false);
        assertEquals(InboundFlow.Step.REPLY, flow.received(publish(3, QoS.AT_LEAST_ONCE, false), false));
        assertEquals(new PubAck(3), flow.reply());
        assertEquals(InboundFlow.Step.REPLY, flow.received(publish(4, QoS.EXACTLY_ONCE, false), false));
        assertEquals(new PubRec(4), flow.reply());
        assertEquals(InboundFlow.Step.NOTHING, flow.received(publish(0, QoS.AT_MOST_ONCE, false), false));
        assertEquals(0, flow.awaiting());
    }

    @Test
    void anAnswerOwedToALostLinkIsNotSentOnTheNextButItsQos2IdCountsAsRouted() {
        var flow = new InboundFlow();
        flow.linkUp(false);
        flow.received(publish(1, QoS.AT_LEAST_ONCE, false), true);
        flow.received(publish(2, QoS.EXACTLY_ONCE, false), true);
        flow.linkUp(true);
        assertNull(flow.locallyPublished());
        assertNull(flow.locallyPublished());
        assertEquals(InboundFlow.Step.REPLY, flow.received(publish(2, QoS.EXACTLY_ONCE, true), true), "the remote's resend, routed before");
        flow.linkUp(false);
        assertEquals(InboundFlow.Step.ROUTE, flow.received(publish(2, QoS.EXACTLY_ONCE, false), true), "a new session: a new message");
    }
}
