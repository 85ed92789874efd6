package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.store.ShardPersistence;

/**
 * A shard's turns and the store: the turn's writes go to the writer thread as one batch, and what must
 * wait for them waits ({@link WriteConfirmations}): the connections' PUBACK / PUBREC / PUBCOMP, and this
 * shard's acknowledgements of its peers' forwarded batches. Without a store nothing waits. While the
 * store fails, what waited for a write that failed is refused ({@link Connection.WritesFailed}).
 */
final class DurableTurns {
    private final ShardPersistence persistence;
    private final Mesh mesh;
    private final WriteConfirmations<ConnectionRef> confirmations = new WriteConfirmations<>();
    /** One for the shard: a connection is told how many of its held packets may go, or must be refused. */
    private final WriteConfirmations.Outcome<ConnectionRef> settle = (connection, count, written) ->
            connection.tell(written ? new Connection.AcknowledgementsWritten(count) : new Connection.WritesFailed(count));
    private final WriteConfirmations.PeerAck ackPeer;

    DurableTurns(ShardPersistence persistence, Mesh mesh) {
        this.persistence = persistence;
        this.mesh = mesh;
        this.ackPeer = mesh::acknowledgeBatch;
    }

    /** The connection's next held acknowledgement goes out once this turn is written, here and by the peers it forwarded to. */
    void await(ConnectionRef connection) {
        confirmations.await(connection);
    }

    /** The connection's next held acknowledgement answers a message that wrote nothing here and went to no peer: it goes now. */
    void nothingToWrite(ConnectionRef connection) {
        confirmations.settleNow(connection, settle);
    }

    /** The turn ends: its writes to the writer, then {@code sendBatches} (deliveries, forwards); its acknowledgements wait. */
    void endTurn(Runnable sendBatches) {
        long batch = flush();
        sendBatches.run();
        // Only a turn with acknowledgements counts its forwards: the copy is per turn, and most turns have none.
        if (confirmations.awaitsThisTurn()) {
            confirmations.turnEnded(batch, mesh.batchesHoldingQueued(), mesh.acknowledgedBatches(), settle);
        }
    }

    /** A peer's forwarded batch was processed (or its acknowledgement was postponed until now): acknowledged once written. */
    void acknowledgePeer(int peer) {
        confirmations.acknowledgePeerAfter(flush(), peer, ackPeer);
    }

    /** The turn's writes as one batch; one written on this thread ({@code batch} durability) is done, or failed, already. */
    private long flush() {
        long batch = persistence.flush();
        if (!persistence.writesBehind()) settleOnThisThread();
        return batch;
    }

    private void settleOnThisThread() {
        if (persistence.hasUnwritten()) {
            writeFailed();
        } else {
            written(persistence.written());
        }
    }

    /** The writer wrote this shard's batches up to {@code batch}. */
    void written(long batch) {
        mesh.written(batch);  // sessions handed to peers meanwhile: their writes come after ours
        if (!persistence.hasUnwritten()) confirmations.recovered();
        confirmations.written(batch, mesh.acknowledgedBatches(), settle, ackPeer);
    }

    /** A write of this shard failed: what waits for it is refused, and so is what waits for a write until the store writes again. */
    void writeFailed() {
        mesh.writeFailed();
        confirmations.writeFailed(mesh.acknowledgedBatches(), settle, ackPeer);
    }

    /** The store writes again: what this shard kept is written now (or, with a writer, next; then it says so). */
    void storeRecovered() {
        persistence.retry();
        if (!persistence.writesBehind()) settleOnThisThread();
    }

    /** A peer acknowledged a forwarded batch ({@code written} false: its write of it failed), or restarted (it owes none any more). */
    void peersAcknowledged(int peer, boolean written) {
        if (!written) {
            confirmations.peerFailed(peer, mesh.acknowledgedBatches()[peer], mesh.acknowledgedBatches(), settle);
        } else {
            confirmations.peersAcknowledged(mesh.acknowledgedBatches(), settle);
        }
    }

    /** The shard stops or restarts: what its last turns journaled is written first, if the store can. */
    void close() {
        persistence.close();
    }
}
