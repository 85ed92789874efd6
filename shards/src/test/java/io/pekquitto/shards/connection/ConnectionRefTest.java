package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The handle's protocol: live, holding while the actor parks, parked, resuming; nothing told is lost or reordered. */
class ConnectionRefTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Established PARKED = new Established(null, null, null, null, TestConnections.CLIENT, Optional.empty(), 0,
            new KeepAlive(60, 0), null, null);

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
}
