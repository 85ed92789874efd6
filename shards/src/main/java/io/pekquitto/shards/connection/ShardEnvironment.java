package io.pekquitto.shards.connection;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.function.LongSupplier;

/**
 * What every connection of one shard shares: the broker's settings and security, the shard's budget for
 * partial packets, the clock, and whether acknowledgements wait for the store.
 *
 * @param clock        the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
 * @param durableAcks  a store is in use: PUBACK, PUBREC and PUBCOMP wait until the shard has written
 *                     what they acknowledge ({@link HeldAcknowledgements})
 */
public record ShardEnvironment(BrokerSettings settings, Security security, PartialPacketBudget partialPackets,
                               LongSupplier clock, boolean durableAcks) {

    /** A shard's environment without a store. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock) {
        return of(settings, security, clock, false);
    }

    /** A shard's environment, with its share of the broker's {@code partial-packet-budget}. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock, boolean durableAcks) {
        var budget = new PartialPacketBudget(Math.max(1, settings.partialPacketBudget() / settings.shards()));
        return new ShardEnvironment(settings, security, budget, clock, durableAcks);
    }
}
