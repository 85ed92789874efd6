package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionDeadlines;
import io.pekquitto.shards.connection.ConnectionRef;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A shard's parked connections, counted for {@link ShardCounts}, and the one timer of its connections'
 * deadlines ({@link ConnectionDeadlines}: a parked one's Keep Alive, a new one's connect timeout, a live
 * one's next check), set to the earliest. A connection past its deadline is told
 * {@link Connection.DeadlineCheck}: a parked one resumes to disconnect.
 */
final class ParkedConnections {
    /** Sets the shard's one timer for parked connections; a later call replaces the earlier. */
    interface Timer {
        void startAfter(Duration delay);
    }

    private final ConnectionDeadlines deadlines;
    private final ShardCounts counts;
    private final Timer timer;
    private final LongSupplier clock;

    ParkedConnections(ShardCounts counts, ConnectionDeadlines deadlines, Timer timer, LongSupplier clock) {
        this.counts = counts;
        this.deadlines = deadlines;
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
