package io.pekquitto.shards.stats;

import java.util.Map;

/**
 * {@code $SYS/broker/...} topics that another part of the broker keeps, outside the shards: the
 * cluster's membership ({@code cluster/nodes}), say. Each sample reads them and publishes what changed
 * beside the broker's own; so an implementation answers from any thread, with what it holds now, and
 * never waits.
 */
@FunctionalInterface
public interface SysExtras {
    /** None: a broker without a cluster. */
    SysExtras NONE = Map::of;

    /** The topics below {@code $SYS/broker/} and their values now, e.g. {@code cluster/nodes -> 3}. */
    Map<String, String> topics();
}
