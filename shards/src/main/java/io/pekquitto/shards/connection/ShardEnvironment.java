package io.pekquitto.shards.connection;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import java.util.function.LongSupplier;

/**
 * What every connection of one shard shares: the broker's settings and security, the shard's budgets for
 * partial packets and for what clients hold in the heap, the clock, and whether acknowledgements wait
 * for the store.
 *
 * @param clock        the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
 * @param durableAcks  a store is in use: PUBACK, PUBREC and PUBCOMP wait until the shard has written
 *                     what they acknowledge ({@link HeldAcknowledgements})
 * @param stats        what the shard counts, for $SYS and the metrics (the connections count into it)
 * @param memory       the shard's part of {@code memory.budget}, which its sessions and connections count against
 */
public record ShardEnvironment(BrokerSettings settings, Security security, PartialPacketBudget partialPackets,
                               LongSupplier clock, boolean durableAcks, ShardStats stats, MemoryBudget memory) {

    /** Whether a session with this expiry interval is there again after a restart: kept in a durable store. */
    public boolean outlivesBroker(long sessionExpiryInterval) {
        return durableAcks && sessionExpiryInterval > 0;
    }

    /** A shard's environment without a store. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock) {
        return of(settings, security, clock, false);
    }

    /** A shard's environment, with its share of the broker's {@code partial-packet-budget}. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock, boolean durableAcks) {
        return of(settings, security, clock, durableAcks, ShardStats.unobserved());
    }

    /**
     * A shard's environment, with its share of the broker's {@code partial-packet-budget} and of its
     * {@code memory.budget}, and its counters.
     */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock, boolean durableAcks,
                                      ShardStats stats) {
        var budget = new PartialPacketBudget(Math.max(1, settings.partialPacketBudget() / settings.shards()));
        var memory = settings.memory();
        return new ShardEnvironment(settings, security, budget, clock, durableAcks, stats,
                new MemoryBudget(memory.shardBudget(settings.shards()), memory.clientShare()));
    }
}
