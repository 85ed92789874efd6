package io.pekquitto.shards.session;

import java.util.Optional;

/**
 * How a session moves to the connection that claims it, when that connection may be on any shard.
 * Every claim of a client id goes to the id's home shard ({@link SessionDirectory#homeOf}), which
 * orders them: each claim gets the session from the claim before it, so the session passes along the
 * claims in the home's order, and the last one keeps it. A claim is named by a token unique in the
 * broker. The owner of a session (or of a claim still waiting for it) that is told to
 * {@link Relinquish} closes its connection and sends the session on in a {@link Handover} once it has
 * it back. The same messages serve one shard alone: it is its own home, and the messages it sends
 * itself are handled in the same turn.
 */
public sealed interface SessionTransfer {

    String clientId();

    /**
     * To the home shard: a connection on shard {@code shard} claims the session with {@code token}; or, with {@code from}
     * not 0, a shard claims it with no connection from the holder of that token only ({@link Adopt}).
     */
    record Claim(String clientId, int shard, long token, long from) implements SessionTransfer {
        public Claim(String clientId, int shard, long token) {
            this(clientId, shard, token, ANY_HOLDER);
        }
    }

    /** A claim's {@code from} when it takes the session from whichever claim came before it. */
    long ANY_HOLDER = 0;

    /** From the home to the holder of {@code token}: hand the session to claim {@code to} instead. */
    record Relinquish(String clientId, long token, Successor to) implements SessionTransfer {}

    /**
     * The session for claim {@code token}: moving to it, or none (there is none, or it ended); live within
     * a node, portable to another ({@link MovingSession}). {@code indexedOn}: the shard whose index still has its
     * subscriptions, which routes its messages until every peer heard it moved (SessionCrossings); or {@link #NOWHERE}.
     */
    record Handover(String clientId, long token, Optional<MovingSession> session, int indexedOn) implements SessionTransfer {
        public Handover(String clientId, long token, Optional<MovingSession> session) {
            this(clientId, token, session, NOWHERE);
        }
    }

    /** No shard: a Handover's {@code indexedOn} when the session is indexed nowhere else. */
    int NOWHERE = -1;

    /** To the home: the session held under {@code token} ended. */
    record Ended(String clientId, long token) implements SessionTransfer {}

    /**
     * A claim or an end passed on once by a shard that is not the client id's home on its ring, to the home on
     * its ring (the sender's ring was another: homes move as nodes come and go, docs/cluster.md).
     */
    record Redirect(SessionTransfer message) implements SessionTransfer {
        public String clientId() { return message.clientId(); }
    }

    /**
     * To a will keeper on another node (docs/cluster.md, Wills across nodes): the session of the client id held on
     * {@code shard} under claim {@code token} has this will, its connection's or one waiting out its delay. The keeper
     * publishes it if that shard's node is lost, at once ({@link HeldWills}, {@link WillKeeper}).
     */
    record KeepWill(String clientId, int shard, long token, Message will, long delaySeconds) implements SessionTransfer {}

    /** To the will keeper: forget the will of claim {@code token} on {@code shard} (published, cancelled, or moved on). */
    record ForgetWill(String clientId, int shard, long token) implements SessionTransfer {}

    /**
     * From a shard of a node that is leaving to the client id's home on the ring without it (docs/cluster.md, A node
     * leaving): claim the session held there under token {@code from}, with no connection, and keep it offline. Ordered by
     * the home as any claim, but moot if another claim was ordered after {@code from}'s: a connection of the client that
     * claimed it meanwhile, anywhere, gets the session, and is not taken over by this.
     */
    record Adopt(String clientId, long from) implements SessionTransfer {}

    /** The claim a session goes to next. */
    record Successor(int shard, long token) {}
}
