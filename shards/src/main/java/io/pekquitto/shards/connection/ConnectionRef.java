package io.pekquitto.shards.connection;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The shard's handle on one client connection, live or parked (docs/connections.md, Parking).
 * The shard, its router and the socket tell the connection through it: a live connection gets the
 * command in its actor's mailbox; a parked one has no actor, so the command waits here while the shard
 * resumes it in a new actor made from its {@link Established} state, and neither the sender nor the
 * client can tell. Before its CONNECT is whole it has no actor either: a {@link PreConnect} serves it.
 * It is the connection's identity in the shard's tables, which therefore do not change when it parks or
 * resumes.
 *
 * <p>Only the shard's thread uses it: the shard, its connection actors and its socket handler share
 * that one thread, so nothing here is synchronized.
 */
public final class ConnectionRef {

    /** Asks the shard for an actor for a parked connection, or one whose CONNECT is whole; the shard answers with {@link #resumed}. */
    @FunctionalInterface
    public interface Resumer {
        void resume(ConnectionRef connection);
    }

    private final Resumer resumer;
    private ActorRef<Connection.Command> actor;
    /** Until its CONNECT is whole and its actor spawned: what serves it, with no actor. */
    private PreConnect preConnect;
    private Established parked;
    /**
     * When the shard's deadline queue ({@link ConnectionDeadlines}) is to tell it {@link Connection.DeadlineCheck}:
     * its connect timeout before its CONNECT, its Keep Alive parked, its actor's next check live; or never.
     */
    private long deadline = Long.MAX_VALUE;
    /** While the actor finishes parking, or while the shard spawns one: what was told meanwhile, in order. */
    private List<Connection.Command> held;

    public ConnectionRef(Resumer resumer) {
        this.resumer = resumer;
    }

    /** The actor that serves this connection from now on: the first, spawned with it (an in-process client's; tests'). */
    public void bind(ActorRef<Connection.Command> actor) {
        this.actor = actor;
    }

    /** A new connection: served without an actor until its CONNECT is whole ({@link PreConnect}). */
    public void awaitConnect(PreConnect handshake) {
        this.preConnect = handshake;
    }

    /**
     * Tells the connection; one before its CONNECT handles it at once, on the caller's turn; a parked one
     * is resumed, and gets the command then.
     */
    public void tell(Connection.Command command) {
        if (held != null) {
            held.add(command);
        } else if (preConnect != null) {
            preConnect.handle(command);
        } else if (parked != null) {
            held = new ArrayList<>(1);
            held.add(command);
            resumer.resume(this);
        } else {
            actor.tell(command);
        }
    }

    /** The state of the current park (also while the shard resumes it), or null when an actor serves it. */
    public Established parked() {
        return parked;
    }

    /** Its state before its actor: whole once the CONNECT is, then the shard spawns the actor; else null. */
    public PreConnect preConnect() {
        return preConnect;
    }

    /** When the shard's queue is to tell it {@link Connection.DeadlineCheck}, or {@link Long#MAX_VALUE} if never. */
    public long deadline() {
        return deadline;
    }

    /** Its one deadline from now on; an entry of the queue with another one is stale. */
    void deadline(long at) {
        deadline = at;
    }

    /** Whether this actor is the one serving the connection now: not an actor that parked, nor one replaced. */
    public boolean isServedBy(ActorRef<Connection.Command> candidate) {
        return parked == null && candidate.equals(actor);
    }

    /**
     * The shard has spawned the actor that serves the connection from now on, parked or past its CONNECT:
     * it gets what waited.
     */
    public void resumed(ActorRef<Connection.Command> resumedBy) {
        parked = null;
        preConnect = null;
        deadline = Long.MAX_VALUE;  // the actor sets its own
        actor = resumedBy;
        var waiting = held;
        held = null;
        if (waiting != null) waiting.forEach(resumedBy::tell);
    }

    /** Its CONNECT is whole ({@link PreConnect}): hold what is told from now on, and ask the shard for its actor. */
    void awaitActor() {
        held = new ArrayList<>(1);
        resumer.resume(this);
    }

    // ---- the parking protocol, run by the connection actor

    /** The actor is about to park: hold what is told from now on (its mailbox has the rest). */
    void hold() {
        held = new ArrayList<>(1);
    }

    /** Ends the hold and returns what was told during it; the actor handles it itself if it does not park. */
    List<Connection.Command> endHold() {
        var told = held;
        held = null;
        return told;
    }

    /** The actor parks and stops: the next command resumes the connection from this state. */
    void park(Established state) {
        parked = state;
        deadline = state.keepAliveDeadline();
        actor = null;
    }
}
