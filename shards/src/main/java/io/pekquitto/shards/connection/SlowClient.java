package io.pekquitto.shards.connection;

import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.memory.OverShare;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client slower than what comes for it, as its {@link Connection} watches it, and what the shard hears
 * of that, when it changes, with the checks that change it when no packet comes (deadlines of the
 * connection's one entry on its shard's queue, {@link ConnectionDeadlines}, not timers of its own):
 * <ul>
 *   <li>under {@code slow-subscriber-policy = throttle} the shard hears when it congests and when it is
 *       relieved, and a congestion that lasts {@link #CONGESTION_TIMEOUT} counts as stuck;</li>
 *   <li>how soon it can take shared subscriptions' work (README, shared subscriptions under Shards):
 *       ready, busy, or stalled once busy for {@link DeliveryWindow#STALL_TIMEOUT} without an acknowledgement;</li>
 *   <li>what it holds in the heap (its session's queue and messages in flight, the bytes waiting for its
 *       socket) counts against the shard's {@link MemoryBudget}; while it holds anything, a check every
 *       {@link #MEMORY_CHECK} lets the window send what the budget now has room for, and says when the
 *       client has held more than its fair share for too long ({@link OverShare}), for the connection to
 *       close it with 0x97 Quota exceeded.</li>
 * </ul>
 */
final class SlowClient {
    private static final Logger LOG = LoggerFactory.getLogger(SlowClient.class);
    /** A check that is not due: off. */
    private static final long NEVER = Long.MAX_VALUE;

    /** How long a congested client may hold publishers back before it counts as stuck. */
    static final Duration CONGESTION_TIMEOUT = Duration.ofSeconds(2);

    /** How often a connection whose client holds anything checks it against the memory budget. */
    static final Duration MEMORY_CHECK = Duration.ofSeconds(1);

    /**
     * Bytes waiting for the socket, with no message held, that start the memory check, which counts them
     * again as the socket drains: more than a CONNACK or acknowledgements on their way. Below it what a
     * client holds is counted at its own events only (at most this much too high while it drains).
     */
    static final long BACKLOG_TO_CHECK = 4 * 1024;

    private final DeliveryWindow window;
    private final PacketWriter writer;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    /** The shard's queue of deadlines, where an earlier check than the connection's next one is set. */
    private final ConnectionDeadlines deadlines;
    /** Its shard's clock, counters, memory budget and shared members: read where used, not kept field by field. */
    private final ShardEnvironment environment;
    /** Made at the first memory check: most connections never hold enough for one. */
    private OverShare overShare;
    /** When, on the shard's clock, a congestion counts as stuck; when a BUSY client is looked at again; the next memory check. */
    private long congestionDue = NEVER;
    private long availabilityDue = NEVER;
    private long memoryCheckDue = NEVER;
    /** The connection ends: no check is set from now on. */
    private boolean closing;

    SlowClient(ShardEnvironment environment, DeliveryWindow window, PacketWriter writer, ActorRef<ShardRequest> shard,
               ConnectionRef self) {
        this.window = window;
        this.writer = writer;
        this.shard = shard;
        this.self = self;
        this.deadlines = environment.deadlines();
        this.environment = environment;
    }

    /** The earliest of its checks, on the shard's clock; {@link Long#MAX_VALUE} if none is on. */
    long nextDeadline() {
        return Math.min(congestionDue, Math.min(availabilityDue, memoryCheckDue));
    }

    /**
     * Runs the checks due at {@code now}; returns why the client is to be disconnected (its quota exceeded), or
     * null. The connection sets its next deadline after.
     */
    String onDeadline(long now) {
        if (isDue(congestionDue, now)) {
            congestionDue = NEVER;
            congestionTimedOut();
        }
        if (isDue(availabilityDue, now)) {
            availabilityDue = NEVER;
            availability();
        }
        if (!isDue(memoryCheckDue, now)) return null;
        memoryCheckDue = now + MEMORY_CHECK.toNanos();  // every MEMORY_CHECK while it holds anything
        return memoryCheck(now);
    }

    private static boolean isDue(long due, long now) {
        return due != NEVER && now - due >= 0;
    }

    /** A check due {@code after} from now: the connection's entry on the shard's queue moves up if it comes first. */
    private long dueIn(Duration after) {
        if (closing) return NEVER;
        long due = environment.clock().getAsLong() + after.toNanos();
        if (due - self.deadline() < 0) deadlines.watch(self, due);
        return due;
    }

    /** Tells the shard when this client starts or stops holding publishers back. */
    void congestion(Congestion change) {
        if (change == Congestion.CONGESTED) {
            shard.tell(new ShardRequest.Congested(self));
            congestionDue = dueIn(CONGESTION_TIMEOUT);
        } else if (change == Congestion.RELIEVED) {
            congestionDue = NEVER;
            shard.tell(new ShardRequest.Relieved(self));
        }
    }

    /** Congested for {@link #CONGESTION_TIMEOUT}: stuck, not slow; publishers stop waiting for it until it drains. */
    private void congestionTimedOut() {
        LOG.debug("[{}] still congested after [{}]: publishers no longer wait", window.session().clientId(), CONGESTION_TIMEOUT);
        environment.stats().congestionTimedOut();
        congestion(window.congestionTimedOut());
    }

    /** After each event of a live connection: what the client holds, and how soon it can take shared work. */
    void afterEvent() {
        account();
        availability();
    }

    /**
     * Tells the shard when how soon this client can take shared subscriptions' work changes; while it
     * is BUSY, a check looks again when it would count as stalled (it may get no message meanwhile).
     */
    void availability() {
        if (!environment.sharedMember().test(window.session().clientId())) return;  // nobody picks it: nothing to tell
        long now = environment.clock().getAsLong();
        var changed = window.availability(writer.backlog(), now);
        if (changed != null) shard.tell(new ShardRequest.Available(self, changed));
        var untilStalled = window.untilStalled(now);
        if (untilStalled != null && availabilityDue == NEVER) availabilityDue = dueIn(untilStalled);
    }

    /**
     * The bytes waiting for the socket go to the session's count, and the memory check starts (when
     * budgets are on) once the client holds messages, or {@link #BACKLOG_TO_CHECK} bytes wait for its
     * socket; it stops at a check that finds it holding none: so a busy connection starts it at most once
     * a check, not once a message, and one with only its CONNACK on the way none at all.
     */
    private void account() {
        window.accountBacklog();
        if (memoryCheckDue != NEVER || !environment.settings().memory().enabled() || !holds()) return;
        memoryCheckDue = dueIn(MEMORY_CHECK);
    }

    private boolean holds() {
        var session = window.session();
        return session.queuedCount() > 0 || session.inflightCount() > 0 || writer.backlog() >= BACKLOG_TO_CHECK;
    }

    /**
     * The memory check: the window sends what the budget now has room for (others may have freed it);
     * returns why the client is to be disconnected if it has held more than its fair share for longer
     * than the grace, else null.
     */
    private String memoryCheck(long now) {
        writer.cork();
        congestion(window.drain(now));
        writer.uncork();
        window.accountBacklog();
        long held = window.session().held();
        var memory = environment.memory();
        if (overShare == null) overShare = new OverShare(environment.settings().memory().overShareGrace());
        if (!overShare.isOverTooLong(memory, held, now)) {
            if (!holds()) memoryCheckDue = NEVER;
            return null;
        }
        return "held " + held + " bytes, more than its fair share of " + memory.fairShare() + ", for "
                + Duration.ofNanos(overShare.overFor(now)).toSeconds() + " s while its shard's memory budget was full";
    }

    /**
     * The client is disconnected for what it holds: counted, and let go. A session that ends with the
     * connection ({@code sessionExpiryInterval} 0) drops its messages, counted; a persistent one a store
     * keeps leaves its queue there alone. With bytes still waiting for its socket it could not read the
     * DISCONNECT behind them: its {@code transport} is cut.
     */
    void letGo(long sessionExpiryInterval, Transport transport) {
        if (writer.backlog() > 0) transport.abort();
        var memory = environment.memory();
        memory.disconnected();
        var session = window.session();
        if (sessionExpiryInterval == 0) {
            memory.dropped(session.queuedCount() + session.inflightCount());
        } else {
            session.spillQueue();
        }
    }

    /** The connection ends: a congestion it caused ends with it, and what its transport still holds no longer counts. */
    void close() {
        closing = true;
        congestion(window.close());
        window.session().backlog(0);
        congestionDue = NEVER;
        availabilityDue = NEVER;
        memoryCheckDue = NEVER;
    }
}
