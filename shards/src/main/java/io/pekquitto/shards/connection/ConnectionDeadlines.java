package io.pekquitto.shards.connection;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The deadlines of a shard's connections, one each ({@link ConnectionRef#deadline}): the connect timeout
 * of those still waiting for their CONNECT ({@link PreConnect}), the Keep Alive of parked ones
 * ([MQTT-3.1.2-24] holds for them too), the next check of a live one (its Keep Alive, its idle grace
 * before it parks, a close's wait): one queue and one timer per shard instead of timers per connection.
 * A connection whose deadline changes leaves its old entry behind, stale, rather than paying for a
 * removal; stale entries are skipped when due and swept whenever the queue has doubled, so it stays
 * within twice the connections watched. An entry is current while its connection's deadline is the same.
 * Only the shard's thread uses it: the shard, which runs it, and its connections' actors.
 */
public final class ConnectionDeadlines {
    private static final int MIN_SWEEP = 64;

    /** Holds the handle only: a stale entry must not keep a gone connection's state alive. */
    private record Entry(long deadline, ConnectionRef connection) {
        boolean isCurrent() {
            return connection.deadline() == deadline;
        }
    }

    private final PriorityQueue<Entry> byDeadline = new PriorityQueue<>(Comparator.comparingLong(Entry::deadline));
    private int sweepAt = MIN_SWEEP;
    /** Tells the shard that runs the queue of a deadline earlier than any before: it sets its timer again. */
    private Runnable earlierDeadline = () -> {};

    /** How the shard that runs the queue hears of a deadline earlier than the one its timer waits for. */
    public void runBy(Runnable earlierDeadline) {
        this.earlierDeadline = earlierDeadline;
    }

    /** A connection's actor sets its next check: the shard's timer is set again if it comes first. */
    void watch(ConnectionRef connection, long at) {
        connection.deadline(at);
        if (add(connection)) earlierDeadline.run();
    }

    /**
     * Watches a connection that has just been accepted or parked (nothing if it has an actor since, or no deadline).
     *
     * @return whether its deadline is now the earliest: the shard's timer must be set to it
     */
    public boolean add(ConnectionRef connection) {
        long deadline = connection.deadline();
        if (deadline == Long.MAX_VALUE) return false;
        if (byDeadline.size() >= sweepAt) {
            byDeadline.removeIf(entry -> !entry.isCurrent());
            sweepAt = Math.max(MIN_SWEEP, 2 * byDeadline.size());
        }
        var entry = new Entry(deadline, connection);
        byDeadline.add(entry);
        return byDeadline.peek() == entry;
    }

    /** Takes out the connections whose deadline has passed and is still the same. */
    public List<ConnectionRef> due(long now) {
        var due = new ArrayList<ConnectionRef>();
        while (!byDeadline.isEmpty() && byDeadline.peek().deadline() - now <= 0) {
            var entry = byDeadline.poll();
            if (entry.isCurrent()) due.add(entry.connection());
        }
        return due;
    }

    /** The earliest deadline still queued, or {@link Long#MAX_VALUE} if none. */
    public long nextDeadline() {
        return byDeadline.isEmpty() ? Long.MAX_VALUE : byDeadline.peek().deadline();
    }

    /** Entries queued, stale ones included: what the sweep bounds. */
    int size() {
        return byDeadline.size();
    }
}
