package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a session in its portable form may be: what a live session could not be is refused, from any node. */
class PortableSessionFormTest {
    private static final PortableSession.Limits LIMITS = new PortableSession.Limits(100, 0, false);
    private static final Optional<Duration> IN_A_MINUTE = Optional.of(Duration.ofMinutes(1));

    private static Message message(QoS qos) {
        return Message.received("t", Binary.utf8("x"), qos, false, Properties.NONE, 0);
    }

    private static PortableSession session(List<PortableSession.InFlight> inFlight, Set<Integer> awaitingPubRel) {
        return new PortableSession("c", LIMITS, inFlight, List.of(), awaitingPubRel, 0, Map.of(), 60, IN_A_MINUTE, Optional.empty());
    }

    private static PortableSession session(long expiryInterval, Optional<Duration> expiresIn) {
        return new PortableSession("c", LIMITS, List.of(), List.of(), Set.of(), 0, Map.of(), expiryInterval, expiresIn, Optional.empty());
    }

    @Test
    void aPacketIdentifierIsFrom1To65535AndInFlightOnce() {  // [MQTT-2.2.1-3], [MQTT-2.2.1-4]
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.InFlight(0, message(QoS.AT_LEAST_ONCE), false));
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.InFlight(65_536, message(QoS.AT_LEAST_ONCE), false));
        var first = new PortableSession.InFlight(7, message(QoS.AT_LEAST_ONCE), false);
        var again = new PortableSession.InFlight(7, message(QoS.EXACTLY_ONCE), false);
        assertThrows(IllegalArgumentException.class, () -> session(List.of(first, again), Set.of()));
        assertThrows(IllegalArgumentException.class, () -> session(List.of(), Set.of(0)), "awaiting PUBREL for 0");
        assertThrows(IllegalArgumentException.class, () -> session(List.of(), Set.of(65_536)));
        assertEquals(Set.of(65_535), session(List.of(first), Set.of(65_535)).awaitingPubRel());
    }

    @Test
    void onlyQos1And2AreInFlightAndOnlyQos2IsReleased() {
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.InFlight(1, message(QoS.AT_MOST_ONCE), false));
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.InFlight(1, message(QoS.AT_LEAST_ONCE), true));
        new PortableSession.InFlight(1, message(QoS.EXACTLY_ONCE), true);
    }

    @Test
    void aSessionThatMovesOutlivesItsConnectionAndExpiresAsItsIntervalSays() {
        assertThrows(IllegalArgumentException.class, () -> session(0, IN_A_MINUTE), "expiry 0: it ends with its connection, where it is");
        assertThrows(IllegalArgumentException.class, () -> session(Session.NEVER_EXPIRES + 1, Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> session(Session.NEVER_EXPIRES, IN_A_MINUTE), "never expires, yet in a minute");
        assertThrows(IllegalArgumentException.class, () -> session(60, Optional.empty()), "expires, yet never");
        assertEquals(Optional.empty(), session(Session.NEVER_EXPIRES, Optional.empty()).expiresIn());
    }

    @Test
    void countsAndLimitsAreNeverNegative() {
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.Limits(-1, 0, false));
        assertThrows(IllegalArgumentException.class, () -> new PortableSession.Limits(1, -1, false));
        assertThrows(IllegalArgumentException.class, () -> new PortableSession("c", LIMITS, List.of(), List.of(), Set.of(), -1,
                Map.of(), 60, IN_A_MINUTE, Optional.empty()));
    }

    @Test
    void itHoldsCopiesOfWhatItWasGiven() {
        var queued = new ArrayList<>(List.of(message(QoS.AT_LEAST_ONCE)));
        var awaiting = new HashSet<>(Set.of(3));
        var session = new PortableSession("c", LIMITS, List.of(), queued, awaiting, 0, Map.of(), 60, IN_A_MINUTE, Optional.empty());
        queued.clear();
        awaiting.clear();
        assertEquals(1, session.queued().size());
        assertEquals(Set.of(3), session.awaitingPubRel());
    }

    @Test
    void aSessionTooHeavyForOneFrameLeavesWithoutItsNewestQueuedMessagesCounted() {
        var big = Message.received("t", Binary.of(new byte[1_000]), QoS.AT_LEAST_ONCE, false, Properties.NONE, 0);
        var inFlight = new PortableSession.InFlight(1, big, false);
        var queued = List.of(message(QoS.AT_LEAST_ONCE), big, big, big);
        var heavy = new PortableSession("c", LIMITS, List.of(inFlight), queued, Set.of(), 2, Map.of(), 60, IN_A_MINUTE, Optional.empty());
        assertSame(heavy, heavy.within(10_000), "it fits: as it is");
        var trimmed = heavy.within(2_500);
        assertEquals(List.of(inFlight), trimmed.inFlight(), "what is in flight goes");
        assertEquals(queued.subList(0, 2), trimmed.queued(), "the oldest queued go, the newest are dropped");
        assertEquals(4, trimmed.droppedMessages(), "and counted");
    }
}
