package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One deadline queue per shard for its parked connections' Keep Alive. */
class ParkedKeepAlivesTest {
    private static final long SECOND = 1_000_000_000L;

    private final ParkedKeepAlives keepAlives = new ParkedKeepAlives();

    /** A connection parked with this Keep Alive, its last packet at {@code lastPacket}. */
    private static ConnectionRef parked(int keepAliveSeconds, long lastPacket) {
        var connection = new ConnectionRef(ref -> {});
        connection.park(new Established(null, null, null, null, TestConnections.CLIENT, Optional.empty(), 0,
                new KeepAlive(keepAliveSeconds, lastPacket), null, null));
        return connection;
    }

    @Test
    void connectionsAreDueAtOneAndAHalfTimesTheirKeepAliveInDeadlineOrder() {  // [MQTT-3.1.2-24]
        var slow = parked(20, 0);
        var fast = parked(10, 0);
        assertTrue(keepAlives.add(slow), "the first deadline arms the timer");
        assertTrue(keepAlives.add(fast), "an earlier one re-arms it");
        assertFalse(keepAlives.add(parked(30, 0)), "a later one does not");
        assertEquals(15 * SECOND, keepAlives.nextDeadline());

        assertEquals(List.of(), keepAlives.due(15 * SECOND - 1));
        assertEquals(List.of(fast), keepAlives.due(15 * SECOND));
        assertEquals(List.of(slow), keepAlives.due(40 * SECOND));
        assertEquals(45 * SECOND, keepAlives.nextDeadline());
    }

    @Test
    void aConnectionWithoutKeepAliveIsNotWatched() {
        assertFalse(keepAlives.add(parked(0, 0)));
        assertEquals(Long.MAX_VALUE, keepAlives.nextDeadline());
    }

    @Test
    void aConnectionThatResumedIsNotDue() {
        var connection = parked(10, 0);
        keepAlives.add(connection);
        connection.resumed(null);
        assertEquals(List.of(), keepAlives.due(100 * SECOND));
    }

    @Test
    void parkingAndResumingOverAndOverKeepsTheQueueBounded() {  // park-thrash
        var connection = parked(3600, 0);
        for (int i = 0; i < 10_000; i++) {
            keepAlives.add(connection);
            connection.resumed(null);
            connection.park(new Established(null, null, null, null, TestConnections.CLIENT, Optional.empty(), 0,
                    new KeepAlive(3600, i), null, null));
        }
        assertTrue(keepAlives.size() <= 128, "stale entries are swept: " + keepAlives.size());
    }
}
