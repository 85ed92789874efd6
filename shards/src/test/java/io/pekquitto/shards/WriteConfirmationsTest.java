package io.pekquitto.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A turn's acknowledgements go once its batch is written here and by every peer it forwarded to; this
 * shard acknowledges a peer's batch once its own writes for it are done.
 */
class WriteConfirmationsTest {
    private static final long[] NO_PEER = {0, 0};
    private final WriteConfirmations<String> confirmations = new WriteConfirmations<>();
    private final List<String> confirmed = new ArrayList<>();
    private final List<Integer> peersAcknowledged = new ArrayList<>();

    private void record(String connection, int count) {
        confirmed.add(connection + "=" + count);
    }

    @Test
    void withoutAStoreATurnIsConfirmedWhenItEnds() {  // every batch is number 0, written at once
        confirmations.await("a");
        confirmations.await("b");
        confirmations.await("a");
        confirmations.turnEnded(0, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of("a=2", "b=1"), confirmed);
    }

    @Test
    void aTurnWaitsForItsBatchToBeWritten() {
        confirmations.await("a");
        confirmations.turnEnded(1, NO_PEER, NO_PEER, this::record);
        confirmations.await("b");
        confirmations.turnEnded(2, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of(), confirmed, "the writer has written nothing yet");
        confirmations.written(1, NO_PEER, this::record, peersAcknowledged::add);
        assertEquals(List.of("a=1"), confirmed);
        confirmations.written(2, NO_PEER, this::record, peersAcknowledged::add);
        assertEquals(List.of("a=1", "b=1"), confirmed);
    }

    @Test
    void aTurnWhoseMessagesWentToAPeerWaitsForThatPeersWrite() {
        confirmations.await("a");
        confirmations.turnEnded(0, new long[] {0, 3}, new long[] {0, 2}, this::record);
        assertEquals(List.of(), confirmed, "peer 1 has not written batch 3");
        confirmations.await("b");
        confirmations.turnEnded(0, new long[] {0, 3}, new long[] {0, 2}, this::record);
        confirmations.peersAcknowledged(new long[] {0, 3}, this::record);
        assertEquals(List.of("a=1", "b=1"), confirmed, "both turns, in order");
    }

    @Test
    void turnsAreConfirmedInOrderNeverALaterOneFirst() {
        confirmations.await("a");
        confirmations.turnEnded(0, new long[] {0, 5}, new long[] {0, 4}, this::record);
        confirmations.await("b");
        confirmations.turnEnded(0, new long[] {0, 4}, new long[] {0, 4}, this::record);
        assertEquals(List.of(), confirmed, "b's turn needs nothing more, but a's comes first");
        confirmations.peersAcknowledged(new long[] {0, 5}, this::record);
        assertEquals(List.of("a=1", "b=1"), confirmed);
    }

    @Test
    void aPeersBatchIsAcknowledgedOnceOurWritesForItAreDone() {
        confirmations.acknowledgePeerAfter(0, 1, peersAcknowledged::add);
        assertEquals(List.of(1), peersAcknowledged, "nothing to write: at once");
        confirmations.acknowledgePeerAfter(3, 1, peersAcknowledged::add);
        confirmations.acknowledgePeerAfter(3, 0, peersAcknowledged::add);
        confirmations.written(2, NO_PEER, this::record, peersAcknowledged::add);
        assertEquals(List.of(1), peersAcknowledged);
        confirmations.written(3, NO_PEER, this::record, peersAcknowledged::add);
        assertEquals(List.of(1, 1, 0), peersAcknowledged);
    }

    @Test
    void aTurnWithoutAcknowledgementsConfirmsNothing() {
        confirmations.turnEnded(0, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of(), confirmed);
    }
}
