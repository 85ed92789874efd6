package io.pekquitto.shards.connection;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.function.LongSupplier;

/**
 * What every connection of one shard shares: the broker's settings and security, the shard's budget for
 * partial packets, and the clock.
 *
 * @param clock the broker's nanosecond clock ({@code System::nanoTime}; tests pass their own)
 */
public record ShardEnvironment(BrokerSettings settings, Security security, PartialPacketBudget partialPackets,
                               LongSupplier clock) {

    /** A shard's environment, with its share of the broker's {@code partial-packet-budget}. */
    public static ShardEnvironment of(BrokerSettings settings, Security security, LongSupplier clock) {
        var budget = new PartialPacketBudget(Math.max(1, settings.partialPacketBudget() / settings.shards()));
        return new ShardEnvironment(settings, security, budget, clock);
    }
}
