package io.pekquitto.shards.connection;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The Keep Alive deadlines of a shard's parked connections ([MQTT-3.1.2-24] holds for them too): one
 * queue and one timer per shard instead of a timer per connection. A connection that resumes leaves
 * its entry behind, stale, rather than paying for a removal; stale entries are skipped when due and
 * swept whenever the queue has doubled, so it stays within twice the parked connections. An entry is
 * current while its connection is parked with the same deadline (a packet moves the deadline).
 */
public final class ParkedKeepAlives {
    private static final int MIN_SWEEP = 64;

    /** Holds the handle only: a stale entry must not keep a gone connection's state alive. */
    private record Entry(long deadline, ConnectionRef connection) {
        boolean isCurrent() {
            var parked = connection.parked();
            return parked != null && parked.keepAliveDeadline() == deadline;
        }
    }

    private final PriorityQueue<Entry> byDeadline = new PriorityQueue<>(Comparator.comparingLong(Entry::deadline));
    private int sweepAt = MIN_SWEEP;

    /**
     * Watches a connection that has just parked (nothing if it resumed since, or has no Keep Alive).
     *
     * @return whether its deadline is now the earliest: the shard's timer must be set to it
     */
    public boolean add(ConnectionRef connection) {
        var parked = connection.parked();
        if (parked == null || parked.keepAliveDeadline() == Long.MAX_VALUE) return false;
        if (byDeadline.size() >= sweepAt) {
            byDeadline.removeIf(entry -> !entry.isCurrent());
            sweepAt = Math.max(MIN_SWEEP, 2 * byDeadline.size());
        }
        var entry = new Entry(parked.keepAliveDeadline(), connection);
        byDeadline.add(entry);
        return byDeadline.peek() == entry;
    }

    /** Takes out the connections whose deadline has passed and which are still in the same park. */
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
