package io.pekquitto.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which nodes left rather than were lost, whose clients' wills the others do not publish (docs/cluster.md, Wills across nodes). */
class DeparturesTest {
    private static final String NODE = "pekquitto@127.0.0.1:25521";
    private final Departures departures = new Departures();

    @Test
    void aNodeThatWasLeavingLeft() {
        departures.leaving(NODE);
        assertTrue(departures.left(NODE));
    }

    @Test
    void aNodeNeverSeenLeavingWasLost() {
        assertFalse(departures.left(NODE));
    }

    @Test
    void aLeavingNodeThatWasDownedWasLost() {  // it stopped answering before it closed its connections
        departures.leaving(NODE);
        departures.downed(NODE);
        assertFalse(departures.left(NODE));
    }

    @Test
    void aNewIncarnationAtTheAddressOfANodeThatLeftIsNotLeaving() {
        departures.leaving(NODE);
        departures.joined(NODE);
        assertFalse(departures.left(NODE));
    }
}
