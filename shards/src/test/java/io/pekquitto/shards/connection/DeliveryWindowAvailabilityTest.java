package io.pekquitto.shards.connection;

import static io.pekquitto.shards.session.Availability.BUSY;
import static io.pekquitto.shards.session.Availability.READY;
import static io.pekquitto.shards.session.Availability.STALLED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.ShardStats;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How soon a client can take shared subscriptions' work, as its window judges it (README.md, shared subscriptions). */
class DeliveryWindowAvailabilityTest {
    private static final long NOW = 5_000_000_000L;
    private static final long STALL = DeliveryWindow.STALL_TIMEOUT.toNanos();

    private final List<Packet> sent = new ArrayList<>();
    private final Session session = new Session("c", 100, false);
    private final ShardStats stats = new ShardStats(LatencyObserver.NONE);
    /** Packet identifiers sent and not yet acknowledged, oldest first. */
    private final ArrayDeque<Integer> unacknowledged = new ArrayDeque<>();

    private DeliveryWindow window(int receiveMaximum) {
        var terms = new ConnectNegotiation.Terms("c", false, 60, 0, receiveMaximum, BrokerSettings.PROTOCOL_MAX_PACKET_SIZE,
                0, true, Properties.NONE);
        return new DeliveryWindow(session, terms, ProtocolVersion.MQTT_5, BrokerSettings.defaults(), packet -> {
            sent.add(packet);
            if (packet instanceof Publish publish && publish.qos() != QoS.AT_MOST_ONCE) unacknowledged.add(publish.packetId());
        }, stats);
    }

    private static Message qos1() {
        return Message.received("t", Binary.utf8("x"), QoS.AT_LEAST_ONCE, false, Properties.NONE, NOW);
    }

    private void deliver(DeliveryWindow window, int count) {
        for (int i = 0; i < count; i++) window.deliver(qos1(), NOW, 0);
    }

    private void acknowledge(DeliveryWindow window, int count, long at) {
        for (int i = 0; i < count; i++) window.pubAck(unacknowledged.poll(), at);
    }

    @Test
    void busyOnceTheWindowIsFullAndReadyAgainWhenHalfOfItIsFree() {
        var window = window(4);
        deliver(window, 3);
        assertNull(window.availability(0, NOW), "room for one more: still READY, nothing to report");
        deliver(window, 1);
        assertEquals(BUSY, window.availability(0, NOW));
        acknowledge(window, 1, NOW);
        assertNull(window.availability(0, NOW), "one slot free is not enough: the shard hears no change per message");
        acknowledge(window, 1, NOW);
        assertEquals(READY, window.availability(0, NOW), "half of the window free");
    }

    @Test
    void aQueuedMessageKeepsItBusy() {
        var window = window(2);
        deliver(window, 4);
        assertEquals(BUSY, window.availability(0, NOW));
        acknowledge(window, 2, NOW);  // the two queued ones go out
        assertEquals(2, session.inflightCount());
        acknowledge(window, 1, NOW);
        assertEquals(READY, window.availability(0, NOW));
    }

    @Test
    void aFullWindowWithoutAcknowledgementForTheStallTimeoutIsStalled() {
        var window = window(2);
        deliver(window, 2);
        assertEquals(BUSY, window.availability(0, NOW));
        assertEquals(Duration.ofNanos(STALL), window.untilStalled(NOW), "the connection looks again then");
        assertNull(window.availability(0, NOW + STALL - 1));
        assertEquals(STALLED, window.availability(0, NOW + STALL));
        assertNull(window.untilStalled(NOW + STALL), "no timer while stalled: an acknowledgement ends it");
    }

    @Test
    void anAcknowledgementPutsTheStallOffAndEndsIt() {
        var window = window(4);
        deliver(window, 6);
        assertEquals(BUSY, window.availability(0, NOW));
        acknowledge(window, 1, NOW + STALL / 2);  // a slow reader, not a stuck one
        assertNull(window.availability(0, NOW + STALL));
        assertEquals(STALLED, window.availability(0, NOW + STALL / 2 + STALL));
        acknowledge(window, 1, NOW + 2 * STALL);
        assertEquals(BUSY, window.availability(0, NOW + 2 * STALL), "it reads again; its window is still full");
    }

    @Test
    void aSocketBacklogOverTheLimitStallsItUntilItIsDownToHalf() {  // a client that does not read
        var window = window(10);
        long limit = DeliveryWindow.OUTBOUND_QOS0_LIMIT;
        assertNull(window.availability(limit, NOW));
        assertEquals(STALLED, window.availability(limit + 1, NOW));
        assertNull(window.availability(limit / 2 + 1, NOW));
        assertEquals(READY, window.availability(limit / 2, NOW));
    }

    @Test
    void aQuietWindowIsReady() {  // so a connection parks READY: parking needs an empty window
        var window = window(1);
        deliver(window, 1);
        assertEquals(BUSY, window.availability(0, NOW));
        acknowledge(window, 1, NOW);
        assertEquals(READY, window.availability(0, NOW));
        assertTrue(window.isQuiet());
    }
}
