package io.pekquitto.shards;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ConnectionDeadlines;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A shard's connections without an actor, as the shard sees them: parked ones, counted for
 * {@link ShardCounts}, and those still waiting for their CONNECT; their deadlines (Keep Alive, connect
 * timeout) watched by one queue and one timer ({@link ConnectionDeadlines}) instead of a timer each. A
 * connection past its deadline is told {@link Connection.DeadlineCheck}: a parked one resumes to disconnect.
 */
final class ParkedConnections {
    /** Sets the shard's one timer for parked connections; a later call replaces the earlier. */
    interface Timer {
        void startAfter(Duration delay);
    }

    private final ConnectionDeadlines deadlines = new ConnectionDeadlines();
    private final ShardCounts counts;
    private final Timer timer;
    private final LongSupplier clock;

    ParkedConnections(ShardCounts counts, Timer timer, LongSupplier clock) {
        this.counts = counts;
        this.timer = timer;
        this.clock = clock;
    }

    void parked(int shard, ConnectionRef connection) {
        counts.parked().incrementAndGet(shard);
        if (deadlines.add(connection)) startTimer();
    }

    /** A new connection: its connect timeout runs from now. */
    void awaitConnect(ConnectionRef connection) {
        if (deadlines.add(connection)) startTimer();
    }

    void resumed(int shard) {
        counts.parked().decrementAndGet(shard);
    }

    /** The timer fired: connections past their deadline find out ([MQTT-3.1.2-24] for a Keep Alive). */
    void checkDeadlines() {
        deadlines.due(clock.getAsLong()).forEach(connection -> connection.tell(Connection.DeadlineCheck.INSTANCE));
        startTimer();
    }

    private void startTimer() {
        long next = deadlines.nextDeadline();
        if (next != Long.MAX_VALUE) timer.startAfter(Duration.ofNanos(Math.max(0, next - clock.getAsLong())));
    }
}
