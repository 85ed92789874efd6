package io.pekquitto.shards.mesh;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Back-pressure towards publishers, so that QoS 1/2 messages are slowed down, never dropped, and memory stays
 * bounded (docs/shards-and-mesh.md, The data plane). A connection reads its next chunk only once the shard
 * has routed its last one; while the data plane towards some peer is over its high-water mark, or a
 * subscriber here is congested ({@code slow-subscriber-policy = throttle}), the shard keeps that reader
 * paused and postpones its acknowledgements of peers' batches, which slows their publishers too. Relief lets
 * them go.
 *
 * @param <R> a paused reader (a connection's transport)
 * @param <C> a congested connection
 */
public final class PublisherThrottle<R, C> {
    private final List<R> pausedReaders = new ArrayList<>();
    private final Set<C> congested = new HashSet<>();
    private final List<Integer> postponedAcks = new ArrayList<>();

    /** What a relief lets go: the peers to acknowledge a batch to, and the readers to resume. */
    public record Relief<R>(List<Integer> acks, List<R> readers) {}

    /** A connection's routes are done: true if it may read on now; false, it is paused until relief. */
    public boolean mayRead(R reader, boolean meshOverloaded) {
        if (!meshOverloaded && congested.isEmpty()) return true;
        pausedReaders.add(reader);
        return false;
    }

    /** A peer's batch was processed: true to acknowledge it now; false, it waits for the congestion to end. */
    public boolean acknowledgeNow(int peer) {
        if (congested.isEmpty()) return true;
        postponedAcks.add(peer);
        return false;
    }

    /** A subscriber's queue fills faster than its client acknowledges. */
    public void congested(C connection) {
        congested.add(connection);
    }

    /** A subscriber drained, gave up or stopped; relief once no subscriber is congested. */
    public Relief<R> relieved(C connection, boolean meshBelowLowWater) {
        if (!congested.remove(connection) || !congested.isEmpty()) return new Relief<>(List.of(), List.of());
        var acks = List.copyOf(postponedAcks);
        postponedAcks.clear();
        return new Relief<>(acks, meshRelieved(meshBelowLowWater));
    }

    /** The data plane drained below its low-water mark: the readers that may read again. */
    public List<R> meshRelieved(boolean meshBelowLowWater) {
        if (pausedReaders.isEmpty() || !congested.isEmpty() || !meshBelowLowWater) return List.of();
        var readers = List.copyOf(pausedReaders);
        pausedReaders.clear();
        return readers;
    }
}
