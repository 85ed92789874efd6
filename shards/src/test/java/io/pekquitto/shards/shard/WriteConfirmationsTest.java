package io.pekquitto.shards.shard;

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
    private final List<String> peerAcksNotWritten = new ArrayList<>();

    private void record(String connection, int count, boolean written) {
        confirmed.add(connection + (written ? "=" : " refused ") + count);
    }

    private void ackPeer(int peer, boolean written) {
        if (written) {
            peersAcknowledged.add(peer);
        } else {
            peerAcksNotWritten.add("peer " + peer);
        }
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
        confirmations.written(1, NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of("a=1"), confirmed);
        confirmations.written(2, NO_PEER, this::record, this::ackPeer);
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
    void anAcknowledgementWithNothingToWriteIsSettledAtOnceBehindTheConnectionsEarlierOnes() {
        confirmations.await("a");
        confirmations.turnEnded(1, NO_PEER, NO_PEER, this::record);  // batch 1 is on the disk
        confirmations.settleNow("b", this::record);
        assertEquals(List.of("b=1"), confirmed, "b waits for no write, not for a's batch");
        confirmations.settleNow("a", this::record);
        confirmations.await("c");
        confirmations.settleNow("c", this::record);
        assertEquals(List.of("b=1"), confirmed, "a's earlier one and c's of this turn still wait: order kept");
        confirmations.turnEnded(2, NO_PEER, NO_PEER, this::record);
        confirmations.written(2, NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of("b=1", "a=2", "c=2"), confirmed);
    }

    @Test
    void aPeersBatchIsAcknowledgedOnceOurWritesForItAreDone() {
        confirmations.acknowledgePeerAfter(0, 1, this::ackPeer);
        assertEquals(List.of(1), peersAcknowledged, "nothing to write: at once");
        confirmations.acknowledgePeerAfter(3, 1, this::ackPeer);
        confirmations.acknowledgePeerAfter(3, 0, this::ackPeer);
        confirmations.written(2, NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of(1), peersAcknowledged);
        confirmations.written(3, NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of(1, 1, 0), peersAcknowledged);
    }

    @Test
    void aTurnWithoutAcknowledgementsConfirmsNothing() {
        confirmations.turnEnded(0, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of(), confirmed);
    }

    // ---- a store that fails

    @Test
    void aFailedWriteRefusesTheTurnsWaitingForItAndLaterOnesUntilEverythingIsWritten() {
        confirmations.await("a");
        confirmations.turnEnded(1, NO_PEER, NO_PEER, this::record);
        confirmations.written(1, NO_PEER, this::record, this::ackPeer);
        confirmations.await("b");
        confirmations.turnEnded(2, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of("a=1"), confirmed);
        confirmations.writeFailed(NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of("a=1", "b refused 1"), confirmed, "batch 2 failed: b's write is not done");
        confirmations.await("c");
        confirmations.turnEnded(3, NO_PEER, NO_PEER, this::record);
        assertEquals(List.of("a=1", "b refused 1", "c refused 1"), confirmed, "ended while failing: refused at once");
        confirmations.written(3, NO_PEER, this::record, this::ackPeer);  // the store writes again, all of it
        confirmations.recovered();
        confirmations.await("d");
        confirmations.turnEnded(4, NO_PEER, NO_PEER, this::record);
        assertEquals(3, confirmed.size(), "waits for its write again");
        confirmations.written(4, NO_PEER, this::record, this::ackPeer);
        assertEquals("d=1", confirmed.get(3));
    }

    @Test
    void aTurnAlreadyWrittenButWaitingForAPeerIsNotRefusedByOurFailure() {
        confirmations.await("a");
        confirmations.turnEnded(1, new long[] {0, 2}, new long[] {0, 1}, this::record);
        confirmations.written(1, NO_PEER, this::record, this::ackPeer);
        confirmations.writeFailed(new long[] {0, 1}, this::record, this::ackPeer);
        assertEquals(List.of(), confirmed, "its own batch is written; the peer's answer decides");
        confirmations.peersAcknowledged(new long[] {0, 2}, this::record);
        assertEquals(List.of("a=1"), confirmed);
    }

    @Test
    void aPeerThatCouldNotWriteOurBatchRefusesTheTurnsWhoseMessagesItHolds() {
        confirmations.await("a");
        confirmations.turnEnded(0, new long[] {0, 3}, new long[] {0, 2}, this::record);
        confirmations.await("b");
        confirmations.turnEnded(0, new long[] {0, 4}, new long[] {0, 2}, this::record);
        confirmations.peersAcknowledged(new long[] {0, 3}, this::record);
        assertEquals(List.of("a=1"), confirmed, "batch 3 was written there");
        confirmations.peerFailed(1, 4, new long[] {0, 4}, this::record);
        assertEquals(List.of("a=1", "b refused 1"), confirmed, "batch 4 was not");
    }

    @Test
    void aPeerFailedBatchBeforeATurnsOwnDoesNotRefuseIt() {
        confirmations.await("a");
        confirmations.turnEnded(0, new long[] {0, 2}, new long[] {0, 0}, this::record);
        confirmations.peerFailed(1, 3, new long[] {0, 1}, this::record);
        assertEquals(List.of(), confirmed, "batch 3 holds none of a's messages; it still waits for batch 2");
        confirmations.peersAcknowledged(new long[] {0, 2}, this::record);
        assertEquals(List.of("a=1"), confirmed);
    }

    @Test
    void whileFailingPeersBatchesAreAcknowledgedAsNotWrittenInOrder() {
        confirmations.acknowledgePeerAfter(2, 1, this::ackPeer);  // waits for our batch 2
        confirmations.writeFailed(NO_PEER, this::record, this::ackPeer);
        assertEquals(List.of("peer 1"), peerAcksNotWritten, "the one that waited, at once");
        confirmations.acknowledgePeerAfter(3, 0, this::ackPeer);
        assertEquals(List.of("peer 1", "peer 0"), peerAcksNotWritten, "and the next, without waiting");
        assertEquals(List.of(), peersAcknowledged);
        confirmations.written(3, NO_PEER, this::record, this::ackPeer);
        confirmations.recovered();
        confirmations.acknowledgePeerAfter(3, 0, this::ackPeer);
        assertEquals(List.of(0), peersAcknowledged, "written again: acknowledged as written");
    }
}
