package io.pekquitto.shards.connection;

import io.pekquitto.shards.settings.ParkingSettings;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * When a live connection parks (docs/connections.md, Parking): once it has been quiet for
 * {@code parking.idle-grace} (no packet from the client, no message to it) and is quiet now (nothing in
 * flight, buffered or half read), its {@link ConnectionRef} holds what is told from then on and the
 * actor sends itself {@link Connection.ParkNow}; when that comes, everything told before has been
 * handled, and if nothing came meanwhile the ref keeps the {@link Established} state and the actor stops.
 */
final class Parking {
    private final ParkingSettings settings;
    private final TimerScheduler<Connection.Command> timers;
    private final LongSupplier clock;
    private final ConnectionRef self;
    private final ActorRef<Connection.Command> actor;
    private final ActorRef<ShardRequest> shard;
    /** When the client last sent a packet or was sent a message. */
    private long lastActivity;
    private boolean parked;

    Parking(ParkingSettings settings, TimerScheduler<Connection.Command> timers, LongSupplier clock, ConnectionRef self,
            ActorRef<Connection.Command> actor, ActorRef<ShardRequest> shard) {
        this.settings = settings;
        this.timers = timers;
        this.clock = clock;
        this.self = self;
        this.actor = actor;
        this.shard = shard;
        this.lastActivity = clock.getAsLong();
    }

    /** Starts the wait for a quiet grace period (on start, and again when a park is called off). */
    void start() {
        if (settings.enabled()) timers.startSingleTimer(Connection.IdleCheck.INSTANCE, settings.idleGrace());
    }

    /** The client sent a packet or was sent a message; returns the clock's time. */
    long activity() {
        return lastActivity = clock.getAsLong();
    }

    /** The idle timer fired: quiet for the grace period and now, the park starts; else the timer waits again. */
    void idleCheck(boolean quiet) {
        var grace = settings.idleGrace();
        long quietFor = clock.getAsLong() - lastActivity;
        if (quietFor < grace.toNanos()) {
            timers.startSingleTimer(Connection.IdleCheck.INSTANCE, grace.minusNanos(quietFor));
        } else if (!quiet) {
            timers.startSingleTimer(Connection.IdleCheck.INSTANCE, grace);
        } else {
            self.hold();  // from now on, what is told waits in the ref; ParkNow comes after all told before
            actor.tell(Connection.ParkNow.INSTANCE);
        }
    }

    /**
     * {@link Connection.ParkNow} came: parks {@code state} and returns true, the actor then stops; or, if
     * something was told meanwhile or the connection is no longer quiet, hands that back to the actor, in
     * order, and returns false.
     */
    boolean parkNow(Established state, boolean closed, boolean quiet) {
        var toldMeanwhile = self.endHold();
        if (closed || !toldMeanwhile.isEmpty() || !quiet) {
            toldMeanwhile.forEach(actor::tell);  // no park: handled by the actor, in order
            if (!closed) start();
            return false;
        }
        self.park(state);
        shard.tell(new ShardRequest.Parked(self));
        parked = true;
        return true;
    }

    /** Whether the actor stopped because it parked: the socket stays open, in the ref's state. */
    boolean isParked() {
        return parked;
    }
}
