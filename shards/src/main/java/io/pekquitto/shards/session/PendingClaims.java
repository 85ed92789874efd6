package io.pekquitto.shards.session;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The claims this shard waits on ({@link PendingClaim}), by token and by connection, and the tokens they are named by:
 * unique in the cluster, from this incarnation of the shard, a count, and the shard's id.
 *
 * @param <C> how the shard names a connection
 */
final class PendingClaims<C> {
    private final Map<Long, PendingClaim<C>> byToken = new HashMap<>();
    private final Map<C, PendingClaim<C>> byConnection = new HashMap<>();
    /** Part of every token: tokens of shards of different nodes, or of one shard before and after a restart, differ. */
    private final long incarnation = ThreadLocalRandom.current().nextLong(1 << 23) << 40;
    private long sequence;
    private int self;

    void joinMesh(int selfIndex) {
        self = selfIndex;
    }

    /** A claim of a new token; of a connection unless {@code connection} is null. */
    PendingClaim<C> open(String clientId, C connection, boolean cleanStart, long sessionExpiryInterval, DelayedWill will) {
        long token = newToken();
        var claim = new PendingClaim<>(clientId, token, connection, cleanStart, sessionExpiryInterval, will);
        byToken.put(token, claim);
        if (connection != null) byConnection.put(connection, claim);
        return claim;
    }

    /** A token: for a claim, or for a session held here that no claim brought (one recovered from the store). */
    long newToken() {
        return incarnation | ((++sequence & 0xFF_FFFFL) << 16) | (self & 0xFFFF);
    }

    PendingClaim<C> get(long token) {
        return byToken.get(token);
    }

    /** The claim of {@code token} is answered: out, and its connection's too. */
    PendingClaim<C> remove(long token) {
        var claim = byToken.remove(token);
        if (claim != null && claim.connection != null) byConnection.remove(claim.connection);
        return claim;
    }

    /** The claim's connection closed or lost: the claim still waits, for no connection. */
    void detach(PendingClaim<C> claim) {
        if (claim.connection != null) byConnection.remove(claim.connection);
        claim.connection = null;
    }

    /** The claim of this connection, taken off it (its connection stopped), or null. */
    PendingClaim<C> ofStopped(C connection) {
        var claim = byConnection.remove(connection);
        if (claim != null) claim.connection = null;
        return claim;
    }

    boolean isEmpty() {
        return byToken.isEmpty();
    }

    Collection<PendingClaim<C>> all() {
        return List.copyOf(byToken.values());
    }
}
