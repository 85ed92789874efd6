package io.pekquitto.shards.connection;

import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.memory.OverShare;
import io.pekquitto.shards.stats.ShardStats;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * A client slower than what comes for it, as its {@link Connection} watches it. Under
 * {@code slow-subscriber-policy = throttle} the shard hears when it congests and when it is relieved,
 * and a congestion that lasts {@link #CONGESTION_TIMEOUT} counts as stuck. What it holds in the heap
 * (its session's queue and messages in flight, the bytes waiting for its socket) counts against the
 * shard's {@link MemoryBudget}; while it holds anything, a check every {@link #MEMORY_CHECK} lets the
 * window send what the budget now has room for, and says when the client has held more than its fair
 * share for too long ({@link OverShare}), for the connection to close it with 0x97 Quota exceeded.
 */
final class SlowClient {
    /** How long a congested client may hold publishers back before it counts as stuck. */
    static final Duration CONGESTION_TIMEOUT = Duration.ofSeconds(2);

    /** How often a connection whose client holds anything checks it against the memory budget. */
    static final Duration MEMORY_CHECK = Duration.ofSeconds(1);

    private final DeliveryWindow window;
    private final PacketWriter writer;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final TimerScheduler<Connection.Command> timers;
    private final ShardStats stats;
    private final MemoryBudget memory;
    /** Null when budgets are off ({@code memory.budget = 0}). */
    private final OverShare overShare;
    /** Whether the memory check's timer runs. */
    private boolean checking;

    SlowClient(ShardEnvironment environment, DeliveryWindow window, PacketWriter writer, ActorRef<ShardRequest> shard,
               ConnectionRef self, TimerScheduler<Connection.Command> timers) {
        this.window = window;
        this.writer = writer;
        this.shard = shard;
        this.self = self;
        this.timers = timers;
        this.stats = environment.stats();
        this.memory = environment.memory();
        var settings = environment.settings().memory();
        this.overShare = settings.enabled() ? new OverShare(settings.overShareGrace()) : null;
    }

    /** Tells the shard when this client starts or stops holding publishers back. */
    void congestion(Congestion change) {
        if (change == Congestion.CONGESTED) {
            shard.tell(new ShardRequest.Congested(self));
            timers.startSingleTimer(Connection.SlowClientTimer.CONGESTION_TIMEOUT, CONGESTION_TIMEOUT);
        } else if (change == Congestion.RELIEVED) {
            timers.cancel(Connection.SlowClientTimer.CONGESTION_TIMEOUT);
            shard.tell(new ShardRequest.Relieved(self));
        }
    }

    /** Congested for {@link #CONGESTION_TIMEOUT}: stuck, not slow; publishers stop waiting for it until it drains. */
    void congestionTimedOut(Logger log, String clientId) {
        log.debug("[{}] still congested after [{}]: publishers no longer wait", clientId, CONGESTION_TIMEOUT);
        stats.congestionTimedOut();
        congestion(window.congestionTimedOut());
    }

    /**
     * After each event: the bytes waiting for the socket go to the session's count, and the memory check
     * runs while the client holds anything (when budgets are on).
     */
    void account() {
        window.accountBacklog();
        if (overShare == null) return;
        var session = window.session();
        boolean holds = session.held() > 0 || session.queuedCount() > 0;
        if (holds == checking) return;
        checking = holds;
        if (holds) {
            timers.startTimerWithFixedDelay(Connection.SlowClientTimer.MEMORY_CHECK, MEMORY_CHECK);
        } else {
            timers.cancel(Connection.SlowClientTimer.MEMORY_CHECK);
        }
    }

    /**
     * The memory check: the window sends what the budget now has room for (others may have freed it);
     * returns why the client is to be disconnected if it has held more than its fair share for longer
     * than the grace, else null.
     */
    String memoryCheck(long now) {
        writer.cork();
        congestion(window.drain(now));
        writer.uncork();
        window.accountBacklog();
        long held = window.session().held();
        if (!overShare.isOverTooLong(memory, held, now)) {
            account();
            return null;
        }
        return "held " + held + " bytes, more than its fair share of " + memory.fairShare() + ", for "
                + Duration.ofNanos(overShare.overFor(now)).toSeconds() + " s while its shard's memory budget was full";
    }

    /**
     * The client is disconnected for what it holds: counted, and let go. A session that ends with the
     * connection ({@code sessionExpiryInterval} 0) drops its messages, counted; a persistent one a store
     * keeps leaves its queue there alone.
     */
    void letGo(long sessionExpiryInterval) {
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
        congestion(window.close());
        window.session().backlog(0);
        if (checking) timers.cancel(Connection.SlowClientTimer.MEMORY_CHECK);
    }
}
