package io.pekquitto.shards.memory;

import io.pekquitto.shards.stats.MemoryFigures;

/**
 * The heap one shard's clients may fill (README, "Memory budgets"). What they hold counts against it:
 * the payload bytes of session queues in the heap and of messages in flight, the bytes waiting for
 * each client's socket, the shard's part of the retained messages, and an estimate per session held.
 * A message counts its payload and {@link #MESSAGE_OVERHEAD}. Each shard has an equal part of {@code memory.budget}, and each client a share of it
 * ({@code max-queued-bytes}). Past them a message is spilled to the store or dropped, a new persistent
 * session is refused and a new retained message is not retained; past the high-water mark, a client
 * holding more than its fair share takes no more, and is disconnected once that has lasted longer than
 * the grace ({@link OverShare}).
 *
 * <p>A payload several subscribers share is counted once for each of them: conservative, since the
 * heap holds it once. Like {@code PartialPacketBudget}, it is used on the shard's thread only, so its
 * counts are plain fields; a limit of 0 counts without refusing anything ({@code memory.budget = 0}).
 */
public final class MemoryBudget {
    /**
     * What a session costs the heap with nothing queued: heap histograms of a broker holding 10,000 and
     * 100,000 offline persistent sessions with one subscription each, store on, gave 1,400 and 1,314
     * bytes each (BENCHMARKS.md, "Memory budgets"): the session and its queue, its subscription in the
     * session and in the trie, its client id, its entries in the shard's maps.
     */
    public static final long SESSION_COST = 1_400;

    /**
     * What a message held for a client costs the heap besides its payload: the message itself (topic,
     * properties, payload wrapper) and its place in the queue or the in-flight window, about 90 bytes
     * measured by their fields; counted once per client, like the payload.
     */
    public static final int MESSAGE_OVERHEAD = 96;

    /** Counts nothing and refuses nothing: for a session on its way between shards, and for tests. */
    public static final MemoryBudget NONE = new MemoryBudget(0, 0, false);

    private final long limit;
    private final long share;
    private final boolean counts;
    /** Bytes held by clients (queues in the heap, in flight, waiting for sockets) and retained messages. */
    private long held;
    private int sessions;
    /** Clients holding any byte now: the fair share is the budget divided among them. */
    private int holders;
    /**
     * Whether a client holding {@code clientHolds} bytes holds no message: fewer than any message costs, so
     * only acknowledgements or a SUBACK waiting for its socket. Those go out in the turn that routes a
     * client's own message back to it; counted as holding, they would keep it from the reserve.
     */
    public static boolean holdsNoMessage(long clientHolds) {
        return clientHolds < MESSAGE_OVERHEAD;
    }

    /** How often a client was turned away for want of room in the budget (not its share): the shard is full. */
    private long turnedAway;
    private long dropped;
    private long disconnected;
    private long sessionsRefused;
    private long retainedRefused;

    /**
     * @param limit the bytes this shard may hold, 0 for no limit (then it only counts)
     * @param share the bytes one client may hold, 0 for no share (the shard's budget alone applies)
     */
    public MemoryBudget(long limit, long share) {
        this(limit, share, true);
    }

    private MemoryBudget(long limit, long share, boolean counts) {
        if (limit < 0 || share < 0) throw new IllegalArgumentException("memory budget " + limit + ", share " + share);
        this.limit = limit;
        this.share = share;
        this.counts = counts;
    }

    /** The bytes this shard may hold; 0 when it has no limit. */
    public long limit() {
        return limit;
    }

    /** The bytes one client may hold; 0 when there is no share. */
    public long share() {
        return share;
    }

    /** Everything counted now: what clients and retained messages hold, and the sessions' estimate. */
    public long used() {
        return held + sessions * SESSION_COST;
    }

    /** Whether {@code bytes} more fit in the shard's budget. */
    public boolean hasRoomFor(long bytes) {
        return limit == 0 || used() + bytes <= limit;
    }

    /**
     * Whether another session fits: the sessions held may take half of the budget at most, so that a flood
     * of persistent sessions never leaves the budget without room for the messages clients hold.
     */
    public boolean hasRoomForSession() {
        return limit == 0 || (sessions + 1) * SESSION_COST <= limit / 2 && hasRoomFor(SESSION_COST);
    }

    /**
     * Whether a client holding {@code clientHolds} may take {@code bytes} more. Within its share (a client
     * that holds nothing ({@link #holdsNoMessage}) may take one message however large, or it could never get one), and:
     * <ul>
     *   <li>up to the high-water mark (nine tenths of the budget), any client;
     *   <li>past it, up to the budget, a client within its fair share ({@link #fairShare()}): those that
     *       hold more wait, or are disconnected once the grace is over ({@link OverShare});
     *   <li>a client that holds nothing, one message even past the budget, into a reserve of a tenth of it:
     *       a client that reads, or a new one, is served while the others fill the budget.
     * </ul>
     */
    public boolean mayTake(long clientHolds, long bytes) {
        boolean holdsNothing = holdsNoMessage(clientHolds);
        if (share > 0 && !holdsNothing && clientHolds + bytes > share) return false;
        if (limit == 0) return true;
        long after = used() + bytes;
        if (after <= highWater()) return true;
        boolean room = holdsNothing ? after <= limit + limit / 10 : clientHolds + bytes <= fairShare() && after <= limit;
        if (!room && counts) turnedAway++;
        return room;
    }

    /** How often a client was turned away for want of room in the budget, not its share: it grows while the shard is full. */
    public long turnedAway() {
        return turnedAway;
    }

    /**
     * How many more bytes a client holding {@code clientHolds} may take, as {@link #mayTake} would let it in
     * one go (what is left of its share and of the budget, or past the high-water mark of its fair share).
     */
    public long roomFor(long clientHolds) {
        long room = share > 0 ? share - clientHolds : Long.MAX_VALUE;
        if (limit > 0) {
            long used = used();
            room = used < highWater() ? Math.min(room, highWater() - used)
                    : Math.min(room, Math.min(fairShare() - clientHolds, limit - used));
        }
        return Math.max(0, room);
    }

    /** Past nine tenths of the budget: clients over their fair share take no more, and are disconnected once the grace is over. */
    public boolean isPastHighWater() {
        return limit > 0 && used() > highWater();
    }

    /**
     * Above three quarters of the budget: a client over its fair share since the shard passed its
     * high-water mark stays over until the shard is back under this ({@link OverShare}).
     */
    public boolean isAboveLowWater() {
        return limit > 0 && used() > limit - limit / 4;
    }

    private long highWater() {
        return limit - limit / 10;
    }

    /**
     * The budget divided among the clients holding bytes and one more, at most a client's share: one more,
     * so that a client holding most of the budget alone is over it, while the others hold nothing.
     */
    public long fairShare() {
        long fair = limit / (holders + 1);
        return share > 0 ? Math.min(share, fair) : fair;
    }

    /** A client now holds {@code now} bytes where it held {@code before}. */
    public void held(long before, long now) {
        if (!counts || before == now) return;
        held += now - before;
        if (before == 0) {
            holders++;
        } else if (now == 0) {
            holders--;
        }
    }

    /** Bytes held by no client: the shard's part of the retained messages. */
    public void shared(long delta) {
        if (counts) held += delta;
    }

    /** The shard now holds {@code count} sessions, each costing {@link #SESSION_COST}. */
    public void sessions(int count) {
        if (counts) sessions = count;
    }

    /** Messages a client did not get because the budget or its share had no room for them. */
    public void dropped(long messages) {
        if (counts) dropped += messages;
    }

    /** A client was disconnected for holding more than its fair share too long (0x97). */
    public void disconnected() {
        if (counts) disconnected++;
    }

    /** A CONNECT that would have made a new persistent session was refused (0x97). */
    public void sessionRefused() {
        if (counts) sessionsRefused++;
    }

    /** A retained message was not retained. */
    public void retainedRefused() {
        if (counts) retainedRefused++;
    }

    public MemoryFigures figures() {
        return new MemoryFigures(used(), limit, dropped, disconnected, sessionsRefused, retainedRefused);
    }
}
