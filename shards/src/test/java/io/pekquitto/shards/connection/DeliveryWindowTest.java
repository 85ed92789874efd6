package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every PUBLISH to the client goes through the delivery window, whether straight from the shard, out
 * of the queue or resent on resume: Receive Maximum, Maximum Packet Size, topic aliases and expiry
 * are applied there, once.
 */
class DeliveryWindowTest {
    private static final long NOW = 1_000_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long NO_LIMIT = BrokerSettings.PROTOCOL_MAX_PACKET_SIZE;

    private final List<Packet> sent = new ArrayList<>();

    private DeliveryWindow window(Session session, int receiveMaximum, long maximumPacketSize, int aliasMaximum,
                                  BrokerSettings settings) {
        var terms = new ConnectNegotiation.Terms("c", false, 60, 0, receiveMaximum, maximumPacketSize, aliasMaximum, true,
                Properties.NONE);
        return new DeliveryWindow(session, terms, ProtocolVersion.MQTT_5, settings, sent::add);
    }

    private DeliveryWindow window(int receiveMaximum) {
        return window(new Session("c", 100, false), receiveMaximum, NO_LIMIT, 0, BrokerSettings.defaults());
    }

    private static Message message(String topic, QoS qos, int payloadBytes) {
        return Message.received(topic, Binary.wrap(new byte[payloadBytes]), qos, false, Properties.NONE, NOW);
    }

    private List<Publish> publishes() {
        return sent.stream().filter(Publish.class::isInstance).map(Publish.class::cast).toList();
    }

    @Test
    void atMostReceiveMaximumInFlightTheRestQueued() {  // [MQTT-4.9.0-2]
        var window = window(2);
        for (int i = 0; i < 5; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0);
        assertEquals(2, publishes().size());
        assertEquals(3, window.session().queuedCount());
        window.pubAck(publishes().get(0).packetId(), NOW);
        assertEquals(3, publishes().size(), "one acknowledged, one more goes");
    }

    @Test
    void qos0TakesNoSlotOfTheWindow() {  // 4.9: Receive Maximum counts QoS 1 and 2 only
        var window = window(1);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0);
        window.deliver(message("t", QoS.AT_MOST_ONCE, 1), NOW, 0);
        assertEquals(2, publishes().size());
    }

    @Test
    void anExpiredMessageIsNotSent() {  // [MQTT-3.3.2-5]
        var window = window(10);
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 1L).build();
        var expiring = Message.received("t", Binary.utf8("x"), QoS.AT_LEAST_ONCE, false, properties, NOW);
        window.deliver(expiring, NOW + 2 * SECOND, 0);
        assertTrue(sent.isEmpty());
    }

    @Test
    void aPublishLargerThanTheClientMaximumIsDiscardedAndFreesItsSlot() {  // [MQTT-3.1.2-25]
        var window = window(new Session("c", 100, false), 1, 100, 0, BrokerSettings.defaults());
        window.deliver(message("t", QoS.AT_LEAST_ONCE, 500), NOW, 0);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, 10), NOW, 0);
        assertEquals(1, publishes().size(), "the large one is dropped as if delivered, the small one goes");
        assertEquals(10, publishes().get(0).payload().length());
        assertEquals(1, window.session().inflightCount());
    }

    @Test
    void aQueuedPublishLargerThanTheClientMaximumIsDiscardedWhenDrained() {  // [MQTT-3.1.2-25]
        var session = new Session("c", 100, false);
        session.enqueue(message("t", QoS.AT_LEAST_ONCE, 500), true);
        session.enqueue(message("t", QoS.AT_LEAST_ONCE, 10), true);
        var window = window(session, 1, 100, 0, BrokerSettings.defaults());
        window.resume(NOW);
        assertEquals(List.of(10), publishes().stream().map(p -> p.payload().length()).toList());
        assertEquals(0, session.queuedCount());
    }

    @Test
    void aResumedSessionResendsItsInFlightMessagesWithDupWithinTheNewMaximumPacketSize() {  // [MQTT-4.4.0-1] [MQTT-3.1.2-25]
        var session = new Session("c", 100, false);
        var first = window(session, 10, NO_LIMIT, 0, BrokerSettings.defaults());
        first.deliver(message("t", QoS.AT_LEAST_ONCE, 500), NOW, 0);
        first.deliver(message("t", QoS.AT_LEAST_ONCE, 10), NOW, 0);
        assertEquals(2, session.inflightCount());
        sent.clear();

        var resumed = window(session, 10, 100, 0, BrokerSettings.defaults());  // a client with a smaller maximum
        resumed.resume(NOW);
        assertEquals(1, publishes().size(), "the oversized in-flight message is not resent");
        assertTrue(publishes().get(0).dup(), "a resend has DUP set");
        assertEquals(1, session.inflightCount(), "and its slot is free");
    }

    @Test
    void aMessageAlreadyPastPubRecIsResumedWithPubRel() {  // [MQTT-4.4.0-1]
        var session = new Session("c", 100, false);
        var first = window(session, 10, NO_LIMIT, 0, BrokerSettings.defaults());
        first.deliver(message("t", QoS.EXACTLY_ONCE, 1), NOW, 0);
        int id = publishes().get(0).packetId();
        first.pubRec(new PubRec(id), NOW);
        assertEquals(new PubRel(id), sent.get(1));
        sent.clear();
        window(session, 10, NO_LIMIT, 0, BrokerSettings.defaults()).resume(NOW);
        assertEquals(List.of(new PubRel(id)), sent);
    }

    @Test
    void aPubRecWithAnErrorEndsTheExchangeAndFreesTheSlot() {  // 4.3.3: no PUBREL after an error PUBREC
        var window = window(1);
        window.deliver(message("t", QoS.EXACTLY_ONCE, 1), NOW, 0);
        window.deliver(message("t", QoS.EXACTLY_ONCE, 1), NOW, 0);
        int id = publishes().get(0).packetId();
        window.pubRec(new PubRec(id, ReasonCode.UNSPECIFIED_ERROR, Properties.NONE), NOW);
        assertTrue(sent.stream().noneMatch(PubRel.class::isInstance));
        assertEquals(2, publishes().size(), "the queued one took the freed slot");
    }

    @Test
    void aPubRecForAnUnknownIdIsAnsweredWith0x92() {  // 3.6.2.1
        window(10).pubRec(new PubRec(77), NOW);
        assertEquals(ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, assertInstanceOf(PubRel.class, sent.get(0)).reason());
    }

    @Test
    void outboundTopicAliasesAreAppliedToEveryPublish() {  // 3.3.2.3.4, within the client's Topic Alias Maximum
        var window = window(new Session("c", 100, false), 10, NO_LIMIT, 1, BrokerSettings.defaults());
        window.deliver(message("a/long/topic", QoS.AT_MOST_ONCE, 1), NOW, 0);
        window.deliver(message("a/long/topic", QoS.AT_LEAST_ONCE, 1), NOW, 0);
        window.deliver(message("other", QoS.AT_MOST_ONCE, 1), NOW, 0);
        var publishes = publishes();
        assertEquals("a/long/topic", publishes.get(0).topic());
        assertEquals(1, publishes.get(0).properties().topicAlias().orElseThrow());
        assertEquals("", publishes.get(1).topic(), "the alias stands for the topic");
        assertEquals(1, publishes.get(1).properties().topicAlias().orElseThrow());
        assertEquals("other", publishes.get(2).topic(), "only one alias allowed: others go in full");
    }

    @Test
    void qos0IsDroppedForAClientThatDoesNotRead() {  // bounded memory
        var window = window(10);
        window.deliver(message("t", QoS.AT_MOST_ONCE, 1), NOW, DeliveryWindow.OUTBOUND_QOS0_LIMIT + 1);
        assertTrue(sent.isEmpty());
        assertEquals(1, window.droppedQos0());
    }

    @Test
    void underTheQueuePolicyASlowClientNeverCongestsThePublishers() {  // slow-subscriber-policy = queue
        var window = window(new Session("c", 10, false), 1, NO_LIMIT, 0, BrokerSettings.defaults());
        for (int i = 0; i < 50; i++) {
            assertEquals(Congestion.UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0));
        }
        assertEquals(10, window.session().queuedCount(), "queued up to max-queued-messages");
        assertEquals(39, window.session().droppedMessages(), "then dropped and counted");
    }

    @Test
    void underTheThrottlePolicyAFillingQueueCongestsAndADrainedOneRelieves() {  // slow-subscriber-policy = throttle
        var settings = BrokerSettings.parse("slow-subscriber-policy = throttle\nmax-queued-messages = 8");
        var window = window(new Session("c", 8, false), 1, NO_LIMIT, 0, settings);
        var changes = new ArrayList<Congestion>();
        for (int i = 0; i < 6; i++) changes.add(window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0));
        assertEquals(List.of(Congestion.UNCHANGED, Congestion.UNCHANGED, Congestion.UNCHANGED, Congestion.UNCHANGED,
                Congestion.CONGESTED, Congestion.UNCHANGED), changes, "congested once the queue reaches half its limit");
        var relieved = Congestion.UNCHANGED;
        for (int i = 0; i < 6 && relieved == Congestion.UNCHANGED; i++) relieved = window.pubAck(publishes().get(i).packetId(), NOW);
        assertEquals(Congestion.RELIEVED, relieved);
        assertTrue(window.session().queuedCount() <= 2, "relieved at a quarter");
    }

    @Test
    void aCongestionThatTimedOutIsNotRaisedAgainUntilTheQueueDrains() {  // a stuck client, not a slow one
        var settings = BrokerSettings.parse("slow-subscriber-policy = throttle\nmax-queued-messages = 8");
        var window = window(new Session("c", 8, false), 1, NO_LIMIT, 0, settings);
        for (int i = 0; i < 5; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0);
        assertEquals(Congestion.RELIEVED, window.congestionTimedOut());
        assertEquals(Congestion.UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE, 1), NOW, 0));
        assertEquals(Congestion.UNCHANGED, window.congestionTimedOut(), "nothing to relieve");
        assertEquals(Congestion.UNCHANGED, window.close(), "the connection ends with no congestion to lift");
    }
}
