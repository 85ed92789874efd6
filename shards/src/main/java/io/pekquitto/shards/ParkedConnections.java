package io.pekquitto.shards;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ParkedKeepAlives;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A shard's parked connections, as the shard sees them: counted for {@link ShardCounts}, and their Keep
 * Alive watched by one queue and one timer ({@link ParkedKeepAlives}) instead of an actor and a timer
 * each. A connection past its deadline is told to check its Keep Alive, which resumes it to disconnect.
 */
final class ParkedConnections {
    /** Sets the shard's one timer for parked connections; a later call replaces the earlier. */
    interface Timer {
        void startAfter(Duration delay);
    }

    private final ParkedKeepAlives keepAlives = new ParkedKeepAlives();
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
        if (keepAlives.add(connection)) startTimer();
    }

    void resumed(int shard) {
        counts.parked().decrementAndGet(shard);
    }

    /** The timer fired: connections past their Keep Alive deadline find out ([MQTT-3.1.2-24]). */
    void checkKeepAlives() {
        keepAlives.due(clock.getAsLong()).forEach(connection -> connection.tell(Connection.KeepAliveCheck.INSTANCE));
        startTimer();
    }

    private void startTimer() {
        long next = keepAlives.nextDeadline();
        if (next != Long.MAX_VALUE) timer.startAfter(Duration.ofNanos(Math.max(0, next - clock.getAsLong())));
    }
}
