package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.ReasonCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** With a store, acknowledgements leave only once written, and never out of order ([MQTT-4.6.0-2], [MQTT-4.6.0-3]). */
class OutboundGateTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private final List<Packet> sent = new ArrayList<>();
    private final TestProbe<ShardRequest> shard = testKit.createTestProbe();
    private final ConnectionRef self = new ConnectionRef(connection -> {});
    private final OutboundGate gate = new OutboundGate(sent::add, shard.getRef(), self);

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    @Test
    void aHeldAcknowledgementWaitsForItsWriteAndThoseBehindItWaitToo() {
        gate.hold(new PubAck(1));                   // its Route asked for the write
        gate.accept(new PubAck(2, ReasonCode.NOT_AUTHORIZED, Properties.NONE));
        gate.hold(new PubAck(3));
        assertEquals(List.of(), sent, "nothing overtakes the first, not even a refusal that needs no write");
        assertFalse(gate.isEmpty(), "a connection holding acknowledgements does not park");
        gate.written(1);
        assertEquals(List.of(1, 2), ids(), "the first is written; the refusal behind it goes with it");
        gate.written(1);
        assertEquals(List.of(1, 2, 3), ids());
        assertTrue(gate.isEmpty());
    }

    @Test
    void confirmationsOfSeveralTurnsReleaseInOrder() {
        for (int id = 1; id <= 4; id++) gate.hold(new PubRec(id));
        gate.written(3);
        assertEquals(List.of(1, 2, 3), ids());
        gate.written(1);
        assertEquals(List.of(1, 2, 3, 4), ids());
    }

    @Test
    void afterWriteAsksTheShardForAConfirmation() {
        gate.afterWrite(new PubComp(7));
        assertEquals(new ShardRequest.AwaitWrite(self), shard.receiveMessage());
        assertEquals(List.of(), sent);
        gate.written(1);
        assertEquals(List.of(7), ids());
    }

    @Test
    void withNothingHeldPacketsGoStraightOut() {
        gate.accept(PingResp.INSTANCE);
        assertEquals(List.of(PingResp.INSTANCE), sent);
    }

    @Test
    void withoutAStoreThereIsNoGateAndNothingWaits() {
        OutboundGate.afterWrite(sent::add, new PubComp(2));
        assertEquals(List.of(2), ids());
        shard.expectNoMessage(Duration.ofMillis(50));
    }

    @Test
    void afterWriteThroughAGateWaits() {
        OutboundGate.afterWrite(gate, new PubComp(3));
        assertEquals(List.of(), sent);
        shard.receiveMessage();
    }

    /** Refuses a PUBACK with 0x97, and nothing else (as a connection to an MQTT 5 client does). */
    private static Packet refusePubAcks(Packet held) {
        return held instanceof PubAck ack ? new PubAck(ack.packetId(), ReasonCode.QUOTA_EXCEEDED, Properties.NONE) : null;
    }

    @Test
    void whatWaitedForAFailedWriteGoesOutRefusedInItsPlaceAndWhatFollowsAsBefore() {
        gate.hold(new PubAck(1));
        gate.accept(new PubAck(2, ReasonCode.NOT_AUTHORIZED, Properties.NONE));
        gate.hold(new PubAck(3));
        assertTrue(gate.failed(1, OutboundGateTest::refusePubAcks));
        assertEquals(List.of(1, 2), ids(), "the first refused in its place, the one behind it as it was");
        assertEquals(ReasonCode.QUOTA_EXCEEDED, ((PubAck) sent.get(0)).reason());
        assertFalse(gate.isEmpty(), "the third still waits for its own write");
        gate.written(1);
        assertEquals(List.of(1, 2, 3), ids());
        assertEquals(ReasonCode.SUCCESS, ((PubAck) sent.get(2)).reason(), "its write was done");
    }

    @Test
    void aHeldPacketWithoutARefusalStaysWithWhatFollowsAndTheConnectionMustEnd() {
        gate.hold(new PubAck(1));
        gate.hold(new PubComp(2));
        gate.accept(PingResp.INSTANCE);
        assertFalse(gate.failed(2, OutboundGateTest::refusePubAcks), "a PUBCOMP cannot be refused");
        assertEquals(List.of(1), ids(), "what came before it went");
        assertFalse(gate.isEmpty());
    }

    private List<Integer> ids() {
        return sent.stream().map(packet -> packet instanceof PubAck ack ? ack.packetId()
                : packet instanceof PubRec rec ? rec.packetId() : ((PubComp) packet).packetId()).toList();
    }
}
