package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

/** One deadline queue per shard for its connections without an actor: parked ones' Keep Alive, new ones' connect timeout. */
class ConnectionDeadlinesTest {
    private static final long SECOND = 1_000_000_000L;

    private final ConnectionDeadlines deadlines = new ConnectionDeadlines();

    /** A connection parked with this Keep Alive, its last packet at {@code lastPacket}. */
    private static ConnectionRef parked(int keepAliveSeconds, long lastPacket) {
        var connection = new ConnectionRef(ref -> {});
        connection.park(new Established(null, null, null, null, false, TestConnections.CLIENT, Optional.empty(), 0,
                new KeepAlive(keepAliveSeconds, lastPacket), null, false, null));
        return connection;
    }

    @Test
    void connectionsAreDueAtOneAndAHalfTimesTheirKeepAliveInDeadlineOrder() {  // [MQTT-3.1.2-24]
        var slow = parked(20, 0);
        var fast = parked(10, 0);
        assertTrue(deadlines.add(slow), "the first deadline arms the timer");
        assertTrue(deadlines.add(fast), "an earlier one re-arms it");
        assertFalse(deadlines.add(parked(30, 0)), "a later one does not");
        assertEquals(15 * SECOND, deadlines.nextDeadline());

        assertEquals(List.of(), deadlines.due(15 * SECOND - 1));
        assertEquals(List.of(fast), deadlines.due(15 * SECOND));
        assertEquals(List.of(slow), deadlines.due(40 * SECOND));
        assertEquals(45 * SECOND, deadlines.nextDeadline());
    }

    @Test
    void aConnectionWithoutKeepAliveIsNotWatched() {
        assertFalse(deadlines.add(parked(0, 0)));
        assertEquals(Long.MAX_VALUE, deadlines.nextDeadline());
    }

    @Test
    void aConnectionThatResumedIsNotDue() {
        var connection = parked(10, 0);
        deadlines.add(connection);
        connection.resumed(null);
        assertEquals(List.of(), deadlines.due(100 * SECOND));
    }

    @Test
    void parkingAndResumingOverAndOverKeepsTheQueueBounded() {  // park-thrash
        var connection = parked(3600, 0);
        for (int i = 0; i < 10_000; i++) {
            deadlines.add(connection);
            connection.resumed(null);
            connection.park(new Established(null, null, null, null, false, TestConnections.CLIENT, Optional.empty(), 0,
                    new KeepAlive(3600, i), null, false, null));
        }
        assertTrue(deadlines.size() <= 128, "stale entries are swept: " + deadlines.size());
    }

    /** A new connection from a client, served with no actor until its CONNECT is whole; told {@code transport} is ready. */
    private static ConnectionRef accepted(ShardEnvironment environment, Transport transport) {
        var connection = new ConnectionRef(ref -> {});
        connection.awaitConnect(new PreConnect(environment, null, connection, TestConnections.ANY_LISTENER));
        connection.tell(new Connection.TransportReady(transport));
        return connection;
    }

    @Test
    void aNewConnectionIsDueAtItsConnectTimeoutUnlessItsConnectIsWholeByThen() {
        var clock = new ManualClock();
        var environment = TestConnections.environment(BrokerSettings.defaults(), clock);
        var silent = accepted(environment, new FakeTransport());
        var connecting = accepted(environment, new FakeTransport());
        assertTrue(deadlines.add(silent));
        deadlines.add(connecting);
        var connect = PacketEncoder.encode(new Connect(ProtocolVersion.MQTT_5, "c", true, 10, Optional.empty(),
                Optional.empty(), Optional.empty(), Properties.NONE), ProtocolVersion.MQTT_5);
        connecting.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(connect)));

        long timeout = clock.getAsLong() + environment.settings().connectTimeout().toNanos();
        assertEquals(timeout, deadlines.nextDeadline());
        assertEquals(List.of(), deadlines.due(timeout - 1));
        assertEquals(List.of(silent), deadlines.due(timeout), "the one whose CONNECT came is no longer watched");
    }
}
