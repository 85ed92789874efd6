package io.pekquitto.shards.routes;

import io.pekquitto.shards.session.Availability;

/**
 * A change of this shard's subscriptions that its peers must hear of, to route to it: the first or
 * last local subscriber of a filter, a member joining or leaving a shared subscription, how soon a
 * member can take work (SharedGroups: when it changes, never per message). Returned by
 * {@link TopicRoutes} when the change is local and applied with {@link TopicRoutes#applyPeerChange}
 * on every peer (the shard sends it over the reliable control plane).
 */
public sealed interface RouteChange {

    /** The shard has its first subscriber to this filter. */
    record InterestAdded(String filter) implements RouteChange {}

    /** The shard has no subscriber to this filter any more. */
    record InterestRemoved(String filter) implements RouteChange {}

    /** A member joined a shared subscription (every shard keeps every group's members). */
    record Joined(String group, String filter, SharedGroups.Member member) implements RouteChange {}

    /** A member left a shared subscription. */
    record Left(String group, String filter, String clientId) implements RouteChange {}

    /** How soon a client of the sender, member of shared subscriptions, can take work changed. */
    record Available(String clientId, Availability availability) implements RouteChange {}
}
