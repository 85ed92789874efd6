package io.pekquitto.shards.connection;

import io.pekquitto.shards.connection.DeliveryWindow.Congestion;
import io.pekquitto.shards.stats.ShardStats;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.Logger;

/**
 * What a connection tells its shard of its {@link DeliveryWindow}, when it changes, with the timers
 * that change it when no packet comes: its congestion (publishers slowed down under
 * {@code slow-subscriber-policy = throttle}) and how soon it can take shared subscriptions' work
 * (README.md, shared subscriptions under Shards). Part of the {@link Connection}, on its thread.
 */
final class WindowSignals {
    /** How long a congested client may hold publishers back before it counts as stuck. */
    static final Duration CONGESTION_TIMEOUT = Duration.ofSeconds(2);

    private final DeliveryWindow window;
    private final PacketWriter writer;
    private final ActorRef<ShardRequest> shard;
    private final ConnectionRef self;
    private final TimerScheduler<Connection.Command> timers;
    private final LongSupplier clock;
    private final ShardStats stats;
    private final Logger log;

    WindowSignals(DeliveryWindow window, PacketWriter writer, ActorRef<ShardRequest> shard, ConnectionRef self,
                  TimerScheduler<Connection.Command> timers, LongSupplier clock, ShardStats stats, Logger log) {
        this.window = window;
        this.writer = writer;
        this.shard = shard;
        this.self = self;
        this.timers = timers;
        this.clock = clock;
        this.stats = stats;
        this.log = log;
    }

    /** Tells the shard when this client starts or stops holding publishers back. */
    void congestion(Congestion change) {
        if (change == Congestion.CONGESTED) {
            shard.tell(new ShardRequest.Congested(self));
            timers.startSingleTimer(Connection.CongestionTimeout.INSTANCE, CONGESTION_TIMEOUT);
        } else if (change == Congestion.RELIEVED) {
            timers.cancel(Connection.CongestionTimeout.INSTANCE);
            shard.tell(new ShardRequest.Relieved(self));
        }
    }

    void congestionTimedOut(String clientId) {
        log.debug("[{}] still congested after [{}]: publishers no longer wait", clientId, CONGESTION_TIMEOUT);
        stats.congestionTimedOut();
        congestion(window.congestionTimedOut());
    }

    /**
     * Tells the shard when how soon this client can take shared subscriptions' work changes; while it
     * is BUSY, a timer looks again when it would count as stalled (it may get no message meanwhile).
     */
    void availability() {
        long now = clock.getAsLong();
        var changed = window.availability(writer.backlog(), now);
        if (changed != null) shard.tell(new ShardRequest.Available(self, changed));
        var untilStalled = window.untilStalled(now);
        if (untilStalled != null && !timers.isTimerActive(Connection.AvailabilityCheck.INSTANCE)) {
            timers.startSingleTimer(Connection.AvailabilityCheck.INSTANCE, untilStalled);
        }
    }
}
