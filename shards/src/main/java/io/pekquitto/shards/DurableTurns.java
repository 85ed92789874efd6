package io.pekquitto.shards;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.store.ShardPersistence;
import java.util.function.BiConsumer;

/**
 * A shard's turns and the store: the turn's writes go to the writer thread as one batch, and what must
 * wait for them waits ({@link WriteConfirmations}): the connections' PUBACK / PUBREC / PUBCOMP, and this
 * shard's acknowledgements of its peers' forwarded batches. Without a store nothing waits.
 */
final class DurableTurns {
    private final ShardPersistence persistence;
    private final Mesh mesh;
    private final WriteConfirmations<ConnectionRef> confirmations = new WriteConfirmations<>();
    /** One for the shard: a connection is told how many of its held packets may go. */
    private final BiConsumer<ConnectionRef, Integer> confirm =
            (connection, count) -> connection.tell(new Connection.AcknowledgementsWritten(count));

    DurableTurns(ShardPersistence persistence, Mesh mesh) {
        this.persistence = persistence;
        this.mesh = mesh;
    }

    /** The connection's next held acknowledgement goes out once this turn is written, here and by the peers it forwarded to. */
    void await(ConnectionRef connection) {
        confirmations.await(connection);
    }

    /** The turn ends: its writes to the writer, then {@code sendBatches} (deliveries, forwards); its acknowledgements wait. */
    void endTurn(Runnable sendBatches) {
        long batch = flush();
        sendBatches.run();
        // Only a turn with acknowledgements counts its forwards: the copy is per turn, and most turns have none.
        if (confirmations.awaitsThisTurn()) {
            confirmations.turnEnded(batch, mesh.batchesHoldingQueued(), mesh.acknowledgedBatches(), confirm);
        }
    }

    /** A peer's forwarded batch was processed (or its acknowledgement was postponed until now): acknowledged once written. */
    void acknowledgePeer(int peer) {
        confirmations.acknowledgePeerAfter(flush(), peer, mesh::acknowledgeBatch);
    }

    /** The turn's writes as one batch; one written on this thread ({@code batch} durability) is done already. */
    private long flush() {
        long batch = persistence.flush();
        if (!persistence.writesBehind()) written(batch);
        return batch;
    }

    /** The writer wrote this shard's batches up to {@code batch}. */
    void written(long batch) {
        confirmations.written(batch, mesh.acknowledgedBatches(), confirm, mesh::acknowledgeBatch);
    }

    /** A peer acknowledged a forwarded batch, or restarted (it owes none any more). */
    void peersAcknowledged() {
        confirmations.peersAcknowledged(mesh.acknowledgedBatches(), confirm);
    }

    /** The shard stops or restarts: what its last turns journaled is written first. */
    void close() {
        persistence.close();
    }
}
