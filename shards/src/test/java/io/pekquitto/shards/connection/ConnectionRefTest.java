package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The handle's protocol: before the CONNECT, live, holding while the actor parks, parked, resuming; nothing told is lost or reordered. */
class ConnectionRefTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Established PARKED = new Established(null, null, null, null, false, TestConnections.CLIENT, Optional.empty(), 0,
            new KeepAlive(60, 0), null, false, null);

    private final List<ConnectionRef> resumeRequests = new ArrayList<>();
    private final ConnectionRef connection = new ConnectionRef(resumeRequests::add);

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private static Connection.Command deliver(int n) {
        return new Connection.Unsubscribed(n, List.of());
    }

    @Test
    void aLiveConnectionIsToldDirectly() {
        TestProbe<Connection.Command> actor = testKit.createTestProbe();
        connection.bind(actor.getRef());
        connection.tell(deliver(1));
        assertEquals(deliver(1), actor.receiveMessage());
        assertTrue(connection.isServedBy(actor.getRef()));
    }

    @Test
    void whatIsToldWhileTheActorParksIsHeldForIt() {
        TestProbe<Connection.Command> actor = testKit.createTestProbe();
        connection.bind(actor.getRef());
        connection.hold();
        connection.tell(deliver(1));
        connection.tell(deliver(2));
        actor.expectNoMessage(Duration.ofMillis(20));
        assertEquals(List.of(deliver(1), deliver(2)), connection.endHold());
        connection.tell(deliver(3));
        assertEquals(deliver(3), actor.receiveMessage(), "live again after the hold");
    }

    @Test
    void aParkedConnectionIsResumedOnceAndGetsWhatWasToldInOrder() {
        TestProbe<Connection.Command> first = testKit.createTestProbe();
        TestProbe<Connection.Command> second = testKit.createTestProbe();
        connection.bind(first.getRef());
        connection.hold();
        connection.endHold();
        connection.park(PARKED);
        assertFalse(connection.isServedBy(first.getRef()), "the actor that parked no longer serves it");

        connection.tell(deliver(1));
        connection.tell(deliver(2));
        assertEquals(List.of(connection), resumeRequests, "one resume, however much is told");
        assertNotNull(connection.parked(), "parked until the shard has spawned the actor");

        connection.resumed(second.getRef());
        assertEquals(deliver(1), second.receiveMessage());
        assertEquals(deliver(2), second.receiveMessage());
        assertTrue(connection.isServedBy(second.getRef()));
        first.expectNoMessage(Duration.ofMillis(20));
    }

    @Test
    void aNewConnectionHasNoActorUntilItsConnectIsWholeThenAsksOnceAndGetsWhatCameMeanwhile() {
        var transport = new FakeTransport();
        var environment = TestConnections.environment(BrokerSettings.defaults(), System::nanoTime);
        connection.awaitConnect(new PreConnect(environment, testKit.<ShardRequest>createTestProbe().getRef(), connection,
                TestConnections.ANY_LISTENER));
        connection.tell(new Connection.TransportReady(transport));
        var connect = PacketEncoder.encode(new Connect(ProtocolVersion.MQTT_5, "c", true, 10, Optional.empty(),
                Optional.empty(), Optional.empty(), Properties.NONE), ProtocolVersion.MQTT_5);
        var bytes = ByteString.fromByteBuffer(connect);
        connection.tell(new Connection.BytesReceived(bytes.take(5)));  // half a CONNECT: read, no actor
        assertEquals(List.of(), resumeRequests, "no actor before the CONNECT is whole");
        connection.tell(new Connection.BytesReceived(bytes.drop(5)));
        assertEquals(List.of(connection), resumeRequests, "an actor asked for once the CONNECT is whole");
        assertNotNull(connection.preConnect().connect, "the CONNECT it starts from");
        connection.tell(deliver(1));  // told before the shard spawned it

        TestProbe<Connection.Command> actor = testKit.createTestProbe();
        connection.resumed(actor.getRef());
        assertEquals(deliver(1), actor.receiveMessage());
        assertTrue(connection.isServedBy(actor.getRef()));
        assertEquals(List.of(connection), resumeRequests, "asked once");
    }
}
