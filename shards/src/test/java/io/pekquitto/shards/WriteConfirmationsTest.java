package io.pekquitto.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A turn's acknowledgements go once its batch is written here and by every peer it forwarded to. */
class WriteConfirmationsTest {
    private final WriteConfirmations<String> confirmations = new WriteConfirmations<>();
    private final List<String> confirmed = new ArrayList<>();

    private void record(String connection, int count) {
        confirmed.add(connection + "=" + count);
    }

    @Test
    void withNothingForwardedATurnIsConfirmedWhenWritten() {
        confirmations.await("a");
        confirmations.await("b");
        confirmations.await("a");
        confirmations.turnWritten(new long[] {0, 0}, new long[] {0, 0}, this::record);
        assertEquals(List.of("a=2", "b=1"), confirmed);
    }

    @Test
    void aTurnWhoseMessagesWentToAPeerWaitsForThatPeersWrite() {
        confirmations.await("a");
        confirmations.turnWritten(new long[] {0, 3}, new long[] {0, 2}, this::record);
        assertEquals(List.of(), confirmed, "peer 1 has not written batch 3");
        confirmations.await("b");
        confirmations.turnWritten(new long[] {0, 3}, new long[] {0, 2}, this::record);
        confirmations.peersAcknowledged(new long[] {0, 3}, this::record);
        assertEquals(List.of("a=1", "b=1"), confirmed, "both turns, in order");
    }

    @Test
    void turnsAreConfirmedInOrderNeverALaterOneFirst() {
        confirmations.await("a");
        confirmations.turnWritten(new long[] {0, 5}, new long[] {0, 4}, this::record);
        confirmations.await("a");
        confirmations.turnWritten(new long[] {0, 5}, new long[] {0, 4}, this::record);
        assertEquals(List.of(), confirmed);
        confirmations.peersAcknowledged(new long[] {0, 5}, this::record);
        assertEquals(List.of("a=1", "a=1"), confirmed);
    }

    @Test
    void aTurnWithoutAcknowledgementsConfirmsNothing() {
        confirmations.turnWritten(new long[] {0}, new long[] {0}, this::record);
        assertEquals(List.of(), confirmed);
    }
}
