package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A DISCONNECT the broker sends comes after the acknowledgements of what it accepted before, which with
 * a store wait for the shard's write: a client past the Receive Maximum gets its PUBRECs, then 0x93.
 * The shard is a probe.
 */
class ConnectionCloseTest {
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.enabled = false\nreceive-maximum = 3");
    private static final ProtocolVersion VERSION = ProtocolVersion.MQTT_5;

    private final ActorTestKit testKit = ActorTestKit.create();
    private final TestProbe<ShardRequest> shard = testKit.createTestProbe();
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;

    @BeforeEach
    void connect() {
        var environment = ShardEnvironment.of(SETTINGS, Security.OPEN, System::nanoTime, true);  // a store
        connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
        connection.tell(new Connection.BytesReceived(encode(new Connect(VERSION, "c", true, 0, Optional.empty(),
                Optional.empty(), Optional.empty(), Properties.NONE))));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("c", 100, false)));
        assertInstanceOf(ConnAck.class, transport.awaitPackets(testKit, VERSION, 1).get(0));
    }

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private static ByteString encode(Packet packet) {
        return ByteString.fromByteBuffer(PacketEncoder.encode(packet, VERSION));
    }

    /** {@code count} QoS 2 PUBLISHes in one chunk, identifiers from 1. */
    private void sendQos2(int count) {
        var bytes = ByteString.emptyByteString();
        for (int id = 1; id <= count; id++) {
            bytes = bytes.concat(encode(new Publish("t", Binary.utf8("m" + id), QoS.EXACTLY_ONCE, false, false, id, Properties.NONE)));
        }
        connection.tell(new Connection.BytesReceived(bytes));
    }

    private void expectRoutes(int count) {
        for (int i = 0; i < count; i++) {
            shard.fishForMessage(Duration.ofSeconds(3), "a Route", request -> request instanceof ShardRequest.Route route
                    && route.awaitingAck() != null ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
        }
    }

    @Test
    void oneQos2PublishPastReceiveMaximumGetsThePubRecsOfTheOthersThenDisconnect0x93() {
        sendQos2(4);
        expectRoutes(3);
        shard.expectNoMessage(Duration.ofMillis(100));  // the fourth is not routed, and the session is not released yet
        assertFalse(transport.closed.get(), "the PUBRECs wait for the shard's write, and the DISCONNECT behind them");
        connection.tell(new Connection.AcknowledgementsWritten(3));
        transport.awaitClosed(testKit);
        var packets = transport.awaitPackets(testKit, VERSION, 5);
        for (int id = 1; id <= 3; id++) assertEquals(id, assertInstanceOf(PubRec.class, packets.get(id)).packetId());
        assertEquals(ReasonCode.RECEIVE_MAXIMUM_EXCEEDED, assertInstanceOf(Disconnect.class, packets.get(4)).reason());
        assertTrue(shard.expectMessageClass(ShardRequest.Release.class) != null, "then the session goes back to the shard");
    }

    @Test
    void aShutdownsDisconnectWaitsForTheAcknowledgementsToo() {
        sendQos2(2);
        expectRoutes(2);
        shard.expectMessageClass(ShardRequest.ResumeReading.class);  // the chunk is read
        connection.tell(Connection.ServerShuttingDown.INSTANCE);
        shard.expectNoMessage(Duration.ofMillis(100));  // no Release yet
        assertFalse(transport.closed.get());
        connection.tell(new Connection.AcknowledgementsWritten(2));
        transport.awaitClosed(testKit);
        var packets = transport.awaitPackets(testKit, VERSION, 4);
        assertEquals(2, assertInstanceOf(PubRec.class, packets.get(2)).packetId());
        assertEquals(ReasonCode.SERVER_SHUTTING_DOWN, assertInstanceOf(Disconnect.class, packets.get(3)).reason());
    }

    @Test
    void aTakeoverWhileTheDisconnectWaitsEndsTheConnectionAtOnce() {
        sendQos2(4);
        expectRoutes(3);
        connection.tell(Connection.TakenOver.INSTANCE);
        transport.awaitClosed(testKit);
        var packets = transport.awaitPackets(testKit, VERSION, 2);
        assertEquals(ReasonCode.SESSION_TAKEN_OVER, assertInstanceOf(Disconnect.class, packets.get(1)).reason(),
                "the new connection has the session: nothing waits for it");
    }
}
