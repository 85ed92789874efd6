package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Keep Alive rule (3.1.2.10) with the time passed in. */
class KeepAliveTest {
    private static final long T0 = 5_000_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aClientMayBeSilentForOneAndAHalfTimesItsKeepAlive() {  // [MQTT-3.1.2-24 (3.1.1)] [MQTT-3.1.2-22 (5.0)]
        var keepAlive = new KeepAlive(10, T0);
        assertEquals(Duration.ofSeconds(15), keepAlive.limit());
        assertTrue(keepAlive.untilExpiry(T0 + 15 * SECOND - 1).compareTo(Duration.ZERO) > 0, "not yet");
        assertFalse(keepAlive.untilExpiry(T0 + 15 * SECOND).compareTo(Duration.ZERO) > 0, "expired at 1.5 x");
    }

    @Test
    void anyPacketStartsTheSilenceAgain() {  // 3.1.2.10: any Control Packet counts
        var keepAlive = new KeepAlive(10, T0);
        keepAlive.packetReceived(T0 + 12 * SECOND);
        assertEquals(Duration.ofSeconds(12), keepAlive.untilExpiry(T0 + 15 * SECOND));
    }

    @Test
    void zeroTurnsTheCheckOff() {  // 3.1.2.10
        assertFalse(new KeepAlive(0, T0).isEnabled());
        assertTrue(new KeepAlive(1, T0).isEnabled());
    }

    @Test
    void theLargestKeepAliveDoesNotOverflow() {  // 65,535 s
        var keepAlive = new KeepAlive(65_535, T0);
        assertEquals(Duration.ofMillis(98_302_500), keepAlive.limit());
        assertTrue(keepAlive.untilExpiry(T0 + 98_302 * SECOND).compareTo(Duration.ZERO) > 0);
    }
}
