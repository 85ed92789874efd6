package io.pekquitto.shards.connection;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.ShardStats;
import io.pekquitto.shards.store.StoreHealth;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * What every connection of one shard shares: the broker's settings and security, the shard's budgets for
 * partial packets and for what clients hold in the heap, the clock, its deadline queue, and whether
 * acknowledgements wait for the store.
 *
 * @param clock        the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
 * @param durableAcks  a store is in use: PUBACK, PUBREC and PUBCOMP wait until the shard has written
 *                     what they acknowledge ({@link HeldAcknowledgements})
 * @param storeHealth  whether the store writes now: while it fails, QoS 1/2 PUBLISHes and persistent
 *                     sessions are refused
 * @param stats        what the shard counts, for $SYS and the metrics (the connections count into it)
 * @param memory       the shard's part of {@code memory.budget}, which its sessions and connections count against
 * @param sharedMember whether a client is a member of a shared group (asked on the shard's thread): only a
 *                     member's connection tells the shard how soon it can take work
 * @param deadlines    the shard's one queue of its connections' deadlines, which it runs ({@link ConnectionDeadlines})
 */
public record ShardEnvironment(BrokerSettings settings, Security security, PartialPacketBudget partialPackets,
                               LongSupplier clock, boolean durableAcks, StoreHealth storeHealth, ShardStats stats,
                               MemoryBudget memory, Predicate<String> sharedMember, ConnectionDeadlines deadlines) {

    /** Whether a session with this expiry interval is there again after a restart: kept in a durable store. */
    public boolean outlivesBroker(long sessionExpiryInterval) {
        return durableAcks && sessionExpiryInterval > 0;
    }

    /** Why a QoS 1/2 PUBLISH is refused while the store fails (a Reason String: no path, no cause). */
    public static final String STORE_FAILING = "the broker cannot store messages now";

    /** Whether what needs a write is refused now: a store that fails. */
    public boolean storeFailing() {
        return durableAcks && storeHealth.isFailing();
    }

    /** A shard's environment without a store. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock) {
        return of(settings, security, clock, false);
    }

    /** A shard's environment, with its share of the broker's {@code partial-packet-budget}. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock, boolean durableAcks) {
        return of(settings, security, clock, durableAcks, StoreHealth.none(), ShardStats.unobserved(), clientId -> false);
    }

    /**
     * A shard's environment, with its share of the broker's {@code partial-packet-budget} and of its
     * {@code memory.budget}, and its counters.
     */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock, boolean durableAcks,
                                      StoreHealth storeHealth, ShardStats stats, Predicate<String> sharedMember) {
        var budget = new PartialPacketBudget(Math.max(1, settings.partialPacketBudget() / settings.shards()));
        var memory = settings.memory();
        return new ShardEnvironment(settings, security, budget, clock, durableAcks, storeHealth, stats,
                new MemoryBudget(memory.shardBudget(settings.shards()), memory.clientShare()), sharedMember,
                new ConnectionDeadlines());
    }
}
