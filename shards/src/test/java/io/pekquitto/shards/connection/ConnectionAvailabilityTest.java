package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import io.pekquitto.shards.store.StoreHealth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection tells its shard how soon its client can take a shared subscription's work only if the
 * client is a member of a shared group: the others' windows fill and empty on every burst, and nobody
 * would listen. The shard is a probe; whether the client is a member is the test's.
 */
class ConnectionAvailabilityTest {
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("parking.enabled = false");

    /** The shard's clock, which plays its deadline queue: the stall check is due on it. */
    private final ManualClock clock = new ManualClock();
    private final ActorTestKit testKit = clock.testKit();
    private final TestProbe<ShardRequest> shard = testKit.createTestProbe();

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    /** A connected MQTT 5 client whose window then fills: receive maximum 20 messages, 25 delivered, none acknowledged. */
    private ConnectionRef fillTheWindow(Predicate<String> sharedMember) {
        var environment = ShardEnvironment.of(SETTINGS, Security.OPEN, clock, false, StoreHealth.none(),
                ShardStats.unobserved(), sharedMember);
        var transport = new FakeTransport();
        var connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
        var connect = new Connect(ProtocolVersion.MQTT_5, "member", true, 0, Optional.empty(), Optional.empty(),
                Optional.empty(), Properties.NONE);
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(connect, ProtocolVersion.MQTT_5))));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("member", 100, false)));
        var messages = new ArrayList<Message>();
        for (int i = 0; i < 25; i++) messages.add(Message.received("t", Binary.utf8("m" + i), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0));
        connection.tell(new Connection.Deliver(messages));
        transport.awaitPackets(testKit, ProtocolVersion.MQTT_5, 21);  // the CONNACK and a window of 20
        return connection;
    }

    @Test
    void aSharedMemberSaysItIsBusyOnceItsWindowIsFull() {
        fillTheWindow(clientId -> true);
        var said = shard.fishForMessage(Duration.ofSeconds(3), "Available", request -> request instanceof ShardRequest.Available
                ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
        assertEquals(Availability.BUSY, ((ShardRequest.Available) said.get(said.size() - 1)).availability());
    }

    @Test
    void aBusyMemberWithoutAcknowledgementForTheStallTimeoutSaysItIsStalled() throws InterruptedException {
        var connection = fillTheWindow(clientId -> true);
        shard.fishForMessage(Duration.ofSeconds(3), "BUSY", request -> request instanceof ShardRequest.Available available
                && available.availability() == Availability.BUSY ? FishingOutcomes.complete() : FishingOutcomes.continueAndIgnore());
        clock.awaitDeadlineWithin(connection, DeliveryWindow.STALL_TIMEOUT);  // its check, set after it told BUSY
        clock.advance(DeliveryWindow.STALL_TIMEOUT.minusMillis(1));
        shard.expectNoMessage(Duration.ofMillis(50));
        clock.advance(Duration.ofMillis(1));  // its check, due on the shard's queue
        var said = shard.expectMessageClass(ShardRequest.Available.class);
        assertEquals(Availability.STALLED, said.availability());
    }

    @Test
    void aClientThatIsNoMemberSaysNothing() {
        fillTheWindow(clientId -> false);
        clock.advance(DeliveryWindow.STALL_TIMEOUT);  // when a member would stall
        var told = new ArrayList<ShardRequest>();
        try {
            while (true) told.add(shard.receiveMessage(Duration.ofMillis(300)));
        } catch (AssertionError quiet) {
            // nothing more within 300 ms
        }
        assertEquals(0, told.stream().filter(ShardRequest.Available.class::isInstance).count(), told::toString);
    }
}
