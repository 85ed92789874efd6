package io.pekquitto.shards.session;

import io.pekquitto.shards.memory.MemoryBudget;
import java.util.function.IntPredicate;

/**
 * Where a moving session crosses between nodes. Between the shards of one node it moves live (a
 * {@link MigratedSession}, at no cost: they share the heap and the store); to a shard on another node it
 * goes as its {@link PortableSession}, exported by the shard that hands it over (which reads what waits
 * in its store and ends it there) and imported by the one that keeps it (which journals it whole).
 * Which shards are on another node is told from outside ({@code isRemote}); a broker of one node has
 * none, and nothing changes for it.
 */
final class NodeCrossing {
    private final IntPredicate isRemote;
    private final long portableBytes;
    private final SessionJournal journal;
    private final MemoryBudget memory;

    /** @param portableBytes what a session leaving its node may carry at most (its newest queued messages are dropped past it) */
    NodeCrossing(IntPredicate isRemote, long portableBytes, SessionJournal journal, MemoryBudget memory) {
        this.isRemote = isRemote;
        this.portableBytes = portableBytes;
        this.journal = journal;
        this.memory = memory;
    }

    /** The session as it goes to {@code shard}, out of this shard's indexes and budget already: portable if that is on another node. */
    MovingSession leaving(int shard, MigratedSession session, long now) {
        return isRemote.test(shard) ? SessionExport.export(session, journal, now).within(portableBytes) : session;
    }

    /** A session that arrived to stay on this shard: rebuilt here if it came from another node. */
    MigratedSession arriving(MovingSession session, long now) {
        return session instanceof PortableSession portable
                ? SessionImport.rebuild(portable, journal, memory, now) : (MigratedSession) session;
    }
}
