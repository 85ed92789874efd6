package io.pekquitto.shards.connection;

import static io.pekquitto.shards.connection.DeliveryWindow.Congestion.CONGESTED;
import static io.pekquitto.shards.connection.DeliveryWindow.Congestion.RELIEVED;
import static io.pekquitto.shards.connection.DeliveryWindow.Congestion.UNCHANGED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.MemoryFigures;
import io.pekquitto.shards.stats.ShardStats;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryWindowTest {
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();
    private static final long NOW = 5_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long NO_LIMIT = BrokerSettings.PROTOCOL_MAX_PACKET_SIZE;

    private final List<Packet> sent = new ArrayList<>();
    private final Session session = new Session("c", 100, false);
    private final List<Long> latencies = new ArrayList<>();
    private final ShardStats stats = new ShardStats(new LatencyObserver() {
        @Override public void publishToDelivery(long nanos) { latencies.add(nanos); }

        @Override public void connectToConnAck(long nanos) {}
    });

    private static ConnectNegotiation.Terms terms(int receiveMaximum, long maximumPacketSize, int topicAliasMaximum) {
        return new ConnectNegotiation.Terms("c", false, 60, 0, receiveMaximum, maximumPacketSize, topicAliasMaximum,
                true, Properties.NONE);
    }

    private DeliveryWindow window(int receiveMaximum) {
        return window(session, terms(receiveMaximum, NO_LIMIT, 0), DEFAULTS);
    }

    private DeliveryWindow window(Session on, ConnectNegotiation.Terms terms, BrokerSettings settings) {
        return new DeliveryWindow(on, terms, ProtocolVersion.MQTT_5, settings, sent::add, stats);
    }

    private static Message message(String topic, QoS qos) {
        return message(topic, qos, "x");
    }

    private static Message message(String topic, QoS qos, String payload) {
        return Message.received(topic, Binary.utf8(payload), qos, false, Properties.NONE, NOW);
    }

    private static Message expiring(QoS qos, long seconds) {
        var expiry = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, seconds).build();
        return Message.received("t", Binary.utf8("x"), qos, false, expiry, NOW);
    }

    private List<Publish> publishes() {
        return sent.stream().filter(Publish.class::isInstance).map(Publish.class::cast).toList();
    }

    private int lastPacketId() {
        return publishes().get(publishes().size() - 1).packetId();
    }

    @Test
    void noMoreThanTheClientsReceiveMaximumInFlight() {  // [MQTT-4.9.0-2]
        var window = window(2);
        for (int i = 0; i < 3; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE, "m" + i), NOW, 0);
        assertEquals(2, publishes().size());
        assertEquals(1, session.queuedCount());
        window.pubAck(publishes().get(0).packetId(), NOW);
        assertEquals(3, publishes().size(), "a PUBACK frees a slot for the queued message");
        assertEquals("m2", publishes().get(2).payload().asUtf8());
    }

    @Test
    void qos0IsNotHeldBackByAFullWindow() {  // 4.9: the send quota counts QoS 1 and 2 only
        var window = window(1);
        window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        window.deliver(message("t", QoS.AT_MOST_ONCE), NOW, 0);
        assertEquals(2, publishes().size());
    }

    @Test
    void anOversizedMessageIsDiscardedAndItsSlotFreed() {  // [MQTT-3.1.2-25]
        var window = window(session, terms(1, 100, 0), DEFAULTS);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(200)), NOW, 0);
        assertTrue(sent.isEmpty());
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "small"), NOW, 0);
        assertEquals(1, publishes().size(), "the discarded message took no slot of Receive Maximum 1");
        assertEquals("small", publishes().get(0).payload().asUtf8());
    }

    @Test
    void anOversizedQos0MessageIsDiscarded() {  // [MQTT-3.1.2-25]
        var window = window(session, terms(10, 100, 0), DEFAULTS);
        window.deliver(message("t", QoS.AT_MOST_ONCE, "x".repeat(200)), NOW, 0);
        assertTrue(sent.isEmpty());
    }

    @Test
    void aMessageOfExactlyTheMaximumPacketSizeIsSent() {  // [MQTT-3.1.2-25] forbids only exceeding it
        var message = message("t", QoS.AT_LEAST_ONCE, "x".repeat(50));
        int size = PacketEncoder.encodedSize(message.toPublish(1, false, NOW), ProtocolVersion.MQTT_5);
        window(session, terms(10, size, 0), DEFAULTS).deliver(message, NOW, 0);
        assertEquals(1, publishes().size());
    }

    @Test
    void oversizedInFlightMessageIsDroppedOnResendAndFreesItsSlot() {  // [MQTT-4.4.0-1], [MQTT-3.1.2-25]
        var first = window(2);
        first.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(200)), NOW, 0);
        first.deliver(message("t", QoS.AT_LEAST_ONCE, "small"), NOW, 0);
        first.deliver(message("t", QoS.AT_LEAST_ONCE, "queued"), NOW, 0);
        sent.clear();
        // The client reconnects to its session, now with a Maximum Packet Size the big message exceeds.
        var resumed = window(session, terms(2, 100, 0), DEFAULTS);
        resumed.resume(NOW);
        var payloads = publishes().stream().map(p -> p.payload().asUtf8()).toList();
        assertEquals(List.of("small", "queued"), payloads, "the queued message takes the freed slot");
        assertEquals(2, session.inflightCount());
    }

    @Test
    void resumeResendsUnacknowledgedPublishesWithDupAndPubRelForReleasedOnes() {  // [MQTT-4.4.0-1], [MQTT-3.3.1-1]
        var first = window(10);
        first.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        first.deliver(message("t", QoS.EXACTLY_ONCE), NOW, 0);
        first.deliver(message("t", QoS.EXACTLY_ONCE), NOW, 0);
        var ids = publishes().stream().map(Publish::packetId).toList();
        assertTrue(publishes().stream().noneMatch(Publish::dup), "a first delivery has DUP 0 [MQTT-4.3.2-1]");
        first.pubRec(new PubRec(ids.get(1)), NOW);
        sent.clear();
        window(10).resume(NOW);
        assertEquals(3, sent.size());
        var resentQos1 = assertInstanceOf(Publish.class, sent.get(0));
        assertEquals(ids.get(0), resentQos1.packetId());
        assertTrue(resentQos1.dup());
        // [MQTT-4.3.3-6] once PUBREL was sent, the PUBLISH is not sent again: its PUBREL is.
        assertEquals(new PubRel(ids.get(1)), sent.get(1));
        var resentQos2 = assertInstanceOf(Publish.class, sent.get(2));
        assertEquals(ids.get(2), resentQos2.packetId());
        assertTrue(resentQos2.dup());
    }

    @Test
    void aResendOnANewConnectionCarriesTheTopicAgain() {  // [MQTT-3.3.2-7]: aliases end with the connection
        var first = window(session, terms(10, NO_LIMIT, 5), DEFAULTS);
        first.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        first.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        assertEquals("", publishes().get(1).topic(), "the first connection used its alias");
        sent.clear();
        window(session, terms(10, NO_LIMIT, 5), DEFAULTS).resume(NOW);
        assertEquals("t", publishes().get(0).topic());
    }

    @Test
    void topicAliasesAreUsedWithinTheClientsMaximum() {  // 3.3.2.3.4, [MQTT-3.3.2-9]
        var window = window(session, terms(10, NO_LIMIT, 1), DEFAULTS);
        window.deliver(message("a", QoS.AT_MOST_ONCE), NOW, 0);
        window.deliver(message("b", QoS.AT_MOST_ONCE), NOW, 0);
        window.deliver(message("a", QoS.AT_MOST_ONCE), NOW, 0);
        var out = publishes();
        assertEquals(List.of("a", "b", ""), out.stream().map(Publish::topic).toList());
        assertFalse(out.get(1).properties().has(PropertyId.TOPIC_ALIAS), "no alias past the client's maximum of 1");
        assertEquals(out.get(0).properties().topicAlias(), out.get(2).properties().topicAlias());
    }

    @Test
    void establishingATopicAliasNeverExceedsTheMaximumPacketSize() {  // [MQTT-3.1.2-25], [MQTT-3.3.2-7]
        var message = message("some/topic", QoS.AT_MOST_ONCE, "x".repeat(40));
        int plainSize = PacketEncoder.encodedSize(message.toPublish(0, false, NOW), ProtocolVersion.MQTT_5);
        var window = window(session, terms(10, plainSize, 5), DEFAULTS);
        window.deliver(message, NOW, 0);
        window.deliver(message, NOW, 0);
        var established = new HashSet<Integer>();
        for (var publish : publishes()) {
            assertTrue(PacketEncoder.encodedSize(publish, ProtocolVersion.MQTT_5) <= plainSize, "larger than the client allows");
            var alias = publish.properties().topicAlias();
            if (publish.topic().isEmpty()) {
                assertTrue(alias.isPresent() && established.contains(alias.get()), "an alias the client was never told");
            } else {
                alias.ifPresent(established::add);
            }
        }
        assertEquals(2, publishes().size(), "both fit: the first without an alias, or both with one");
    }

    @Test
    void anExpiredMessageIsNotSent() {  // [MQTT-3.3.2-5]
        window(1).deliver(expiring(QoS.AT_LEAST_ONCE, 1), NOW + 2 * SECOND, 0);
        assertTrue(sent.isEmpty());
        assertEquals(0, session.inflightCount());
    }

    @Test
    void aMessageThatExpiresWhileQueuedIsNotSent() {  // [MQTT-3.3.2-5]
        var window = window(1);
        window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        window.deliver(expiring(QoS.AT_LEAST_ONCE, 1), NOW, 0);
        window.pubAck(lastPacketId(), NOW + 2 * SECOND);
        assertEquals(1, publishes().size());
        assertEquals(0, session.queuedCount());
    }

    @Test
    void theMessageExpiryIntervalSentIsWhatIsLeft() {  // [MQTT-3.3.2-6]
        window(1).deliver(expiring(QoS.AT_MOST_ONCE, 10), NOW + 4 * SECOND, 0);
        assertEquals(6L, publishes().get(0).properties().messageExpiryInterval().orElseThrow());
    }

    @Test
    void qos0IsDroppedForAClientThatDoesNotRead() {
        var window = window(10);
        window.deliver(message("t", QoS.AT_MOST_ONCE), NOW, DeliveryWindow.OUTBOUND_QOS0_LIMIT + 1);
        assertTrue(sent.isEmpty());
        assertEquals(1, stats.figures(0, null, MemoryFigures.NONE).publishDropped());
        window.deliver(message("t", QoS.AT_MOST_ONCE), NOW, DeliveryWindow.OUTBOUND_QOS0_LIMIT);
        assertEquals(1, publishes().size());
    }

    @Test
    void theShardCountsWhatIsDroppedAndHowLongWhatIsSentWaited() {
        var window = window(1);
        window.deliver(message("t", QoS.AT_MOST_ONCE), NOW + 3, 0);                                    // sent at once
        window.deliver(message("t", QoS.AT_MOST_ONCE), NOW, DeliveryWindow.OUTBOUND_QOS0_LIMIT + 1);  // dropped
        window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW + 5, 0);                                  // in flight
        window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW + 6, 0);                                  // queued
        window.pubAck(publishes().get(1).packetId(), NOW + 10);                                        // then sent

        assertEquals(List.of(3L, 5L, 10L), latencies);
        assertEquals(1, stats.figures(0, null, MemoryFigures.NONE).publishDropped());
    }

    @Test
    void qos1IsNotDroppedForABacklog() {  // QoS 1 is at least once: never dropped for a slow socket
        window(10).deliver(message("t", QoS.AT_LEAST_ONCE), NOW, DeliveryWindow.OUTBOUND_QOS0_LIMIT * 10);
        assertEquals(1, publishes().size());
    }

    @Test
    void theQueuePolicyNeverSignalsCongestionAndDropsPastTheLimit() {
        var settings = BrokerSettings.parse("slow-subscriber-policy = queue\nmax-queued-messages = 4");
        var small = new Session("c", 4, false);
        var window = window(small, terms(1, NO_LIMIT, 0), settings);
        for (int i = 0; i < 10; i++) assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0));
        assertEquals(4, small.queuedCount());
        assertEquals(5, small.droppedMessages());
        assertEquals(UNCHANGED, window.congestionTimedOut());
        assertEquals(UNCHANGED, window.close());
    }

    private DeliveryWindow throttled(Session on, int maxQueued) {
        var settings = BrokerSettings.parse("slow-subscriber-policy = throttle\nmax-queued-messages = " + maxQueued);
        return window(on, terms(1, NO_LIMIT, 0), settings);
    }

    @Test
    void theThrottlePolicySignalsCongestionOnceAtHalfTheQueueLimit() {
        var window = throttled(new Session("c", 8, false), 8);
        assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0));  // in flight
        for (int i = 0; i < 3; i++) assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0));
        assertEquals(CONGESTED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0));  // 4 queued: half of 8
        assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0));
    }

    @Test
    void aCongestedQueueKeepsMessagesPastItsLimit() {  // throttle: QoS 1 and 2 are slowed down, not dropped
        var small = new Session("c", 4, false);
        var window = throttled(small, 4);
        for (int i = 0; i < 10; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        assertEquals(9, small.queuedCount());
        assertEquals(0, small.droppedMessages());
    }

    @Test
    void aCongestionIsRelievedOnceTheQueueDrainsToAQuarter() {
        var window = throttled(new Session("c", 8, false), 8);
        for (int i = 0; i < 5; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);  // 1 in flight, 4 queued
        assertEquals(UNCHANGED, window.pubAck(lastPacketId(), NOW));  // 3 queued
        assertEquals(RELIEVED, window.pubAck(lastPacketId(), NOW));  // 2 queued: a quarter of 8
        assertEquals(UNCHANGED, window.pubAck(lastPacketId(), NOW));
    }

    @Test
    void aTimedOutCongestionIsRelievedAndNotSignalledAgainUntilDrained() {
        var window = throttled(new Session("c", 8, false), 8);
        for (int i = 0; i < 5; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        assertEquals(RELIEVED, window.congestionTimedOut());
        assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0), "given up: no new congestion");
        while (window.session().queuedCount() > 0) window.pubAck(lastPacketId(), NOW);
        for (int i = 0; i < 3; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        assertEquals(CONGESTED, window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0), "drained: congestion again");
    }

    @Test
    void closingRelievesTheCongestionItCaused() {
        var window = throttled(new Session("c", 8, false), 8);
        assertEquals(UNCHANGED, window.close(), "not congested: nothing to relieve");
        for (int i = 0; i < 5; i++) window.deliver(message("t", QoS.AT_LEAST_ONCE), NOW, 0);
        assertEquals(RELIEVED, window.close());
    }

    @Test
    void pubRecIsAnsweredWithPubRelAndTheSlotHeldUntilPubComp() {  // [MQTT-4.3.3-4], [MQTT-4.3.3-5]
        var window = window(1);
        window.deliver(message("t", QoS.EXACTLY_ONCE, "first"), NOW, 0);
        window.deliver(message("t", QoS.EXACTLY_ONCE, "second"), NOW, 0);
        int id = lastPacketId();
        window.pubRec(new PubRec(id), NOW);
        assertEquals(new PubRel(id), sent.get(sent.size() - 1));
        assertEquals(1, publishes().size(), "PUBREL does not free the slot");
        window.pubComp(id, NOW);
        assertEquals("second", publishes().get(1).payload().asUtf8());
    }

    @Test
    void pubRecWithAnErrorCodeEndsTheExchangeWithoutPubRel() {  // 4.3.3: the packet identifier is free again
        var window = window(1);
        window.deliver(message("t", QoS.EXACTLY_ONCE, "first"), NOW, 0);
        window.deliver(message("t", QoS.EXACTLY_ONCE, "second"), NOW, 0);
        window.pubRec(new PubRec(lastPacketId(), ReasonCode.UNSPECIFIED_ERROR, Properties.NONE), NOW);
        assertTrue(sent.stream().noneMatch(PubRel.class::isInstance));
        assertEquals("second", publishes().get(1).payload().asUtf8());
    }

    @Test
    void pubRecForAnUnknownPacketIdGetsPubRelPacketIdentifierNotFound() {  // 3.6.2.1, reason code 0x92
        window(1).pubRec(new PubRec(33), NOW);
        var pubRel = assertInstanceOf(PubRel.class, sent.get(0));
        assertEquals(33, pubRel.packetId());
        assertEquals(ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, pubRel.reason());
    }

    // ---- the memory budget

    /** A shard of 10,000 bytes whose clients may hold 1,000 each, and a session counted against it. */
    private final MemoryBudget budget = new MemoryBudget(10_000, 1_000);
    private final Session counted = new Session("c", 100, 0, false, budget);

    private DeliveryWindow budgeted(int receiveMaximum, BrokerSettings settings, long[] backlog) {
        return new DeliveryWindow(counted, terms(receiveMaximum, NO_LIMIT, 0), ProtocolVersion.MQTT_5, settings, sent::add,
                stats, budget, () -> backlog[0]);
    }

    @Test
    void qos0ThatItsShareHasNoRoomForIsDroppedAndCountedByTheBudget() {
        var window = budgeted(10, DEFAULTS, new long[1]);
        window.deliver(message("t", QoS.AT_MOST_ONCE, "x".repeat(300)), NOW, 800);
        assertTrue(publishes().isEmpty());
        assertEquals(1, budget.figures().dropped());
        assertEquals(0, stats.figures(0, null, MemoryFigures.NONE).publishDropped(), "counted once, as the budget's");
        window.deliver(message("t", QoS.AT_MOST_ONCE, "x".repeat(200)), NOW, 800);
        assertEquals(1, publishes().size());
    }

    @Test
    void sysMessagesReachAMonitoringClientEvenWhenItsShareHasNoRoom() {
        var window = budgeted(10, DEFAULTS, new long[1]);
        window.deliver(message("$SYS/broker/memory/used", QoS.AT_MOST_ONCE, "x".repeat(300)), NOW, 800);
        assertEquals(1, publishes().size(), "the broker's own figures, a bounded few, are not dropped for the budget");
        assertEquals(0, budget.figures().dropped());
    }

    @Test
    void whatWaitsForTheSocketCountsAsTheClients() {
        var window = budgeted(10, DEFAULTS, new long[1]);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(100)), NOW, 700);
        assertEquals(800 + MemoryBudget.MESSAGE_OVERHEAD, counted.held(), "in flight 100 and the message's own objects, waiting for the socket 700");
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(300)), NOW, 700);
        assertEquals(1, publishes().size(), "neither in flight nor queued: past its share");
        assertEquals(1, budget.figures().dropped());
    }

    @Test
    void aQueuedMessageWaitsWhileTheBacklogLeavesNoRoomForItsCopy() {
        long[] backlog = {0};
        var window = budgeted(1, DEFAULTS, backlog);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(300)), NOW, 0);
        window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(300)), NOW, 0);  // queued behind a full window
        backlog[0] = 800;
        window.pubAck(lastPacketId(), NOW);
        assertEquals(1, publishes().size(), "800 waiting and 300 more would pass its share of 1,000");
        backlog[0] = 0;
        window.drain(NOW);
        assertEquals(2, publishes().size(), "the socket took them: it goes");
    }

    @Test
    void theThrottlePolicySignalsCongestionAtHalfTheClientsShare() {
        var settings = BrokerSettings.parse("slow-subscriber-policy = throttle");
        var window = budgeted(1, settings, new long[1]);
        // Each message costs its payload and MESSAGE_OVERHEAD (96).
        assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(300)), NOW, 0));  // in flight: 396
        assertEquals(UNCHANGED, window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(4)), NOW, 0));  // 496 held
        assertEquals(CONGESTED, window.deliver(message("t", QoS.AT_LEAST_ONCE, "x".repeat(4)), NOW, 0), "596: past half its share");
        assertEquals(2, counted.queuedCount(), "two messages queue: far from max-queued-messages");
    }
}
