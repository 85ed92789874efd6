package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import io.pekquitto.shards.store.StoreException;
import io.pekquitto.shards.store.StoreHealth;
import java.time.Duration;
import java.util.List;
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
 * A connection while the store fails (README, "When the disk fills"): what waited for a write that
 * failed is refused with 0x97, QoS 1/2 PUBLISHes are refused at once, a 3.1.1 connection ends once what
 * it sent before is acknowledged, and a persistent session is refused at CONNECT. The shard is a probe.
 */
class ConnectionStoreFailureTest {
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.enabled = false");

    private final ActorTestKit testKit = ActorTestKit.create();
    private final StoreHealth health = new StoreHealth("store /data", System::nanoTime);
    private final TestProbe<ShardRequest> shard = testKit.createTestProbe();
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;
    private ProtocolVersion version;

    @BeforeEach
    void start() {
        var environment = ShardEnvironment.of(SETTINGS, Security.OPEN, System::nanoTime, true, health, ShardStats.unobserved(),
                clientId -> false);
        connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
    }

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private void failTheStore() {
        health.failed(new StoreException("store /data: a write failed: No space left on device", null));
    }

    private void send(Packet packet) {
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(packet, version))));
    }

    /** CONNECT; its CONNACK is {@link #connAck()}, after the shard's answer if it got so far. */
    private void connect(ProtocolVersion version, boolean cleanStart, long sessionExpiry) {
        this.version = version;
        var properties = version.hasProperties() && sessionExpiry > 0
                ? Properties.builder().set(PropertyId.SESSION_EXPIRY_INTERVAL, sessionExpiry).build() : Properties.NONE;
        send(new Connect(version, "k", cleanStart, 0, Optional.empty(), Optional.empty(), Optional.empty(), properties));
    }

    private ConnAck connAck() {
        return assertInstanceOf(ConnAck.class, awaitPackets(1).get(0));
    }

    /** A clean session connects: the shard gives it a new session. */
    private void connected(ProtocolVersion version) {
        connect(version, true, 0);
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("k", 100, false)));
        assertEquals(ReasonCode.SUCCESS, connAck().reason());
    }

    /** The next Route the shard is asked for (the connection's requests to read more pass by). */
    private ShardRequest.Route nextRoute() {
        var fished = shard.fishForMessage(Duration.ofSeconds(3), "a Route", request -> request instanceof ShardRequest.Route
                ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
        return (ShardRequest.Route) fished.get(fished.size() - 1);
    }

    private static Publish publish(QoS qos, int packetId) {
        return new Publish("t", Binary.utf8("m"), qos, false, false, packetId, Properties.NONE);
    }

    private List<Packet> awaitPackets(int count) {
        return transport.awaitPackets(testKit, version, count);
    }

    private void awaitClosed() {
        transport.awaitClosed(testKit);
    }

    private static void assertRefused(Packet packet, int packetId) {
        var reason = packet instanceof PubAck ack ? ack.reason() : ((PubRec) packet).reason();
        var properties = packet instanceof PubAck ack ? ack.properties() : ((PubRec) packet).properties();
        assertEquals(ReasonCode.QUOTA_EXCEEDED, reason, packet::toString);
        assertEquals(packetId, packet instanceof PubAck ack ? ack.packetId() : ((PubRec) packet).packetId());
        assertEquals(Optional.of(ShardEnvironment.STORE_FAILING), properties.reasonString(), "says why, without the store's path");
    }

    @Test
    void anAcknowledgementWhoseWriteFailedGoesOutRefusedAndTheConnectionStays() {
        connected(ProtocolVersion.MQTT_5);
        send(publish(QoS.AT_LEAST_ONCE, 1));
        assertTrue(nextRoute().awaitingAck() != null, "held until written");
        connection.tell(new Connection.WritesFailed(1));
        assertRefused(awaitPackets(2).get(1), 1);
        assertFalse(transport.closed.get());
    }

    @Test
    void whileTheStoreFailsQos1And2AreRefusedAtOnceAndQos0GoesOn() {
        connected(ProtocolVersion.MQTT_5);
        failTheStore();
        send(publish(QoS.AT_LEAST_ONCE, 1));
        assertRefused(awaitPackets(2).get(1), 1);
        send(publish(QoS.EXACTLY_ONCE, 5));
        assertRefused(awaitPackets(3).get(2), 5);
        send(publish(QoS.AT_MOST_ONCE, 0));
        assertEquals(QoS.AT_MOST_ONCE, nextRoute().message().qos(), "neither was routed; QoS 0 needs no write");
        assertEquals(2, health.refusedCount());

        health.recovered();
        send(publish(QoS.EXACTLY_ONCE, 5));  // the refused identifier is free again: a new message, not a resend
        nextRoute();
        connection.tell(new Connection.AcknowledgementsWritten(1));
        var pubRec = assertInstanceOf(PubRec.class, awaitPackets(4).get(3));
        assertEquals(ReasonCode.SUCCESS, pubRec.reason());
    }

    @Test
    void a311ConnectionEndsOnceWhatItSentBeforeIsAcknowledged() {
        connected(ProtocolVersion.MQTT_3_1_1);
        send(publish(QoS.AT_LEAST_ONCE, 1));
        nextRoute();
        failTheStore();
        send(publish(QoS.AT_LEAST_ONCE, 2));  // 3.1.1 has no refusal code
        send(publish(QoS.AT_MOST_ONCE, 0));  // nor is anything read after it
        assertFalse(transport.closed.get(), "message 1 still waits for its write");
        connection.tell(new Connection.AcknowledgementsWritten(1));
        awaitClosed();
        var packets = transport.packets(version);
        assertEquals(2, packets.size(), packets::toString);
        assertEquals(1, assertInstanceOf(PubAck.class, packets.get(1)).packetId(), "acknowledged, then closed");
        assertEquals(ReasonCode.SUCCESS, ((PubAck) packets.get(1)).reason());
        var after = shard.fishForMessage(Duration.ofSeconds(3), "the Release", request -> request instanceof ShardRequest.Release
                ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
        assertTrue(after.stream().noneMatch(ShardRequest.Route.class::isInstance), "neither 2 nor 0 was routed: " + after);
    }

    @Test
    void a311AcknowledgementWhoseWriteFailedEndsTheConnectionWithoutIt() {
        connected(ProtocolVersion.MQTT_3_1_1);
        send(publish(QoS.AT_LEAST_ONCE, 1));
        nextRoute();
        connection.tell(new Connection.WritesFailed(1));
        awaitClosed();
        assertEquals(1, transport.packets(version).size(), "no PUBACK: the client sends it again on its next connection");
    }

    @Test
    void aPersistentSessionIsRefusedAtConnectWhileTheStoreFails() {
        failTheStore();
        connect(ProtocolVersion.MQTT_5, true, 60);
        assertEquals(ReasonCode.QUOTA_EXCEEDED, connAck().reason());
        awaitClosed();
        assertEquals(1, health.refusedCount());
    }

    @Test
    void a311PersistentSessionIsRefusedWithServerUnavailable() {
        failTheStore();
        connect(ProtocolVersion.MQTT_3_1_1, false, 0);
        assertEquals(3, connAck().reason().connAckReturnCodeV3(), "3.1.1: Server unavailable");
        awaitClosed();
    }

    @Test
    void aCleanSessionConnectsWhileTheStoreFails() {
        failTheStore();
        connected(ProtocolVersion.MQTT_5);
    }
}
