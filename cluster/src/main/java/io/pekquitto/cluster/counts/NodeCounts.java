package io.pekquitto.cluster.counts;

import io.pekquitto.shards.stats.BrokerFigures;

/**
 * One node's counts, as it tells the other nodes every {@code sys-interval} for the cluster's {@code $SYS} totals
 * (docs/cluster.md, What the operator sees): clients connected, sessions held, subscriptions, PUBLISH received
 * and sent.
 */
public record NodeCounts(String node, long connected, long sessions, long subscriptions, long received, long sent)
        implements ClusterCounts.Command {

    /** This node's counts from its broker's figures. */
    static NodeCounts of(String node, BrokerFigures figures) {
        return new NodeCounts(node, figures.connected(), figures.sum(shard -> shard.gauges().sessions()),
                figures.sum(shard -> shard.gauges().subscriptions()), figures.sum(shard -> shard.publishReceived()),
                figures.sum(shard -> shard.publishSent()));
    }

    /** These counts and {@code other}'s together. */
    NodeCounts plus(NodeCounts other) {
        return new NodeCounts("cluster", connected + other.connected, sessions + other.sessions,
                subscriptions + other.subscriptions, received + other.received, sent + other.sent);
    }
}
