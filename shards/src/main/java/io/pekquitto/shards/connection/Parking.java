package io.pekquitto.shards.connection;

import io.pekquitto.shards.settings.ParkingSettings;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * When a live connection parks (docs/connections.md, Parking): once it has been quiet for
 * {@code parking.idle-grace} (no packet from the client, no message to it) and is quiet now (nothing in
 * flight, buffered or half read), its {@link ConnectionRef} holds what is told from then on and the
 * actor sends itself {@link Connection.ParkNow}; when that comes, everything told before has been
 * handled, and if nothing came meanwhile the ref keeps the {@link Established} state and the actor stops.
 * Its idle check is one of the times the connection's one deadline waits for ({@link #nextCheck}), not a timer.
 */
final class Parking {
    private final ParkingSettings settings;
    private final LongSupplier clock;
    private final ConnectionRef self;
    private final ActorRef<Connection.Command> actor;
    private final ActorRef<ShardRequest> shard;
    /** When the client last sent a packet or was sent a message. */
    private long lastActivity;
    /** When the idle check is due, or {@link Long#MAX_VALUE} with parking off. */
    private long checkAt = Long.MAX_VALUE;
    /** Between the idle check that starts a park and the {@link Connection.ParkNow} that ends it. */
    private boolean parking;
    private boolean parked;

    Parking(ParkingSettings settings, LongSupplier clock, ConnectionRef self, ActorRef<Connection.Command> actor,
            ActorRef<ShardRequest> shard) {
        this.settings = settings;
        this.clock = clock;
        this.self = self;
        this.actor = actor;
        this.shard = shard;
        this.lastActivity = clock.getAsLong();
    }

    /** Starts the wait for a quiet grace period (on start, and again when a park is called off). */
    void start() {
        if (settings.enabled()) checkAt = clock.getAsLong() + settings.idleGrace().toNanos();
    }

    /** When the idle check is due (the connection's deadline waits for it too), or {@link Long#MAX_VALUE} if never. */
    long nextCheck() {
        return checkAt;
    }

    /** The client sent a packet or was sent a message; returns the clock's time. */
    long activity() {
        return lastActivity = clock.getAsLong();
    }

    /** The idle check is due: quiet for the grace period and now, the park starts; else the check waits again. */
    void idleCheck(boolean quiet) {
        var grace = settings.idleGrace();
        long now = clock.getAsLong();
        long quietFor = now - lastActivity;
        if (quietFor < grace.toNanos()) {
            checkAt = now + grace.toNanos() - quietFor;
        } else if (!quiet) {
            checkAt = now + grace.toNanos();
        } else {
            checkAt = Long.MAX_VALUE;  // until the park is called off
            parking = true;
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
        parking = false;
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

    /**
     * Whether a park has started and {@link Connection.ParkNow} not come yet: the actor queues no deadline meanwhile.
     * The shard queues a parked one's Keep Alive itself (a second entry cost each parked connection 24 bytes), and
     * a park called off queues the actor's next check then.
     */
    boolean isParking() {
        return parking;
    }

    /** Whether the actor stopped because it parked: the socket stays open, in the ref's state. */
    boolean isParked() {
        return parked;
    }
}
