package io.pekquitto.shards.broker;

import io.pekquitto.shards.listener.actor.ListenerReport;

/**
 * What the {@link Broker} hears from its own parts: its listeners' and shards' answers (through its message
 * adapters: they know nothing of the broker) and its shutdown's timer.
 */
sealed interface BrokerInternal extends BrokerCommand {

    /** A listener is bound, or failed to. */
    record FromListener(ListenerReport report) implements BrokerInternal {}

    /** From a shard shutting down: none of its connections is left. */
    record ShardDrained(int index) implements BrokerInternal {}

    /** The shutdown took longer than the clients' share of {@code shutdown-timeout}. */
    enum ShutdownTimedOut implements BrokerInternal { INSTANCE }
}
