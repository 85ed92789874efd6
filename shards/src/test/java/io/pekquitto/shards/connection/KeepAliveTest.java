package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KeepAliveTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long CONNECTED = 42 * SECOND;

    private static boolean expired(KeepAlive keepAlive, long now) {
        var left = keepAlive.untilExpiry(now);
        return left.isZero() || left.isNegative();
    }

    @Test
    void aClientSilentForOneAndAHalfKeepAlivesHasExpired() {  // [MQTT-3.1.2-24]
        var keepAlive = new KeepAlive(10, CONNECTED);
        assertFalse(expired(keepAlive, CONNECTED + 15 * SECOND - 1), "the grace of half a Keep Alive is allowed");
        assertTrue(expired(keepAlive, CONNECTED + 15 * SECOND + 1));
    }

    @Test
    void theFirstCheckIsDueOneAndAHalfKeepAlivesAfterConnect() {  // [MQTT-3.1.2-24]
        var keepAlive = new KeepAlive(10, CONNECTED);
        assertEquals(Duration.ofSeconds(15), keepAlive.limit());
        assertEquals(Duration.ofSeconds(15), keepAlive.untilExpiry(CONNECTED));
    }

    @Test
    void anyPacketRestartsTheCount() {  // 3.1.2.10: any Control Packet counts, not only PINGREQ
        var keepAlive = new KeepAlive(10, CONNECTED);
        keepAlive.packetReceived(CONNECTED + 12 * SECOND);
        assertFalse(expired(keepAlive, CONNECTED + 20 * SECOND));
        assertEquals(Duration.ofSeconds(7), keepAlive.untilExpiry(CONNECTED + 20 * SECOND));
        assertTrue(expired(keepAlive, CONNECTED + 28 * SECOND));
    }

    @Test
    void keepAliveZeroTurnsTheMechanismOff() {  // 3.1.2.10
        assertFalse(new KeepAlive(0, CONNECTED).isEnabled());
        assertTrue(new KeepAlive(1, CONNECTED).isEnabled());
    }

    @Test
    void theLargestKeepAliveDoesNotOverflow() {  // Keep Alive is a Two Byte Integer: at most 65,535 s
        var keepAlive = new KeepAlive(65_535, CONNECTED);
        assertEquals(Duration.ofMillis(98_302_500), keepAlive.limit());
        assertFalse(expired(keepAlive, CONNECTED + 98_302 * SECOND));
    }

    @Test
    void theNanosecondClockMayWrapAround() {  // System.nanoTime values may be negative or wrap
        long nearTheEnd = Long.MAX_VALUE - 5 * SECOND;
        var keepAlive = new KeepAlive(10, nearTheEnd);
        assertFalse(expired(keepAlive, nearTheEnd + 14 * SECOND), "14 s later, past Long.MAX_VALUE");
        assertTrue(expired(keepAlive, nearTheEnd + 16 * SECOND));
    }
}
