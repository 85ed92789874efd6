package io.pekquitto.shards.routes;

import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.List;

/**
 * Everything one topic matches, computed once from the indexes and cached until a change touches it:
 * the local subscriptions ({@code uniqueClients} when no client has two of them, so that no
 * aggregation is needed), the peers with a matching filter, and the matching shared groups.
 */
public record Route(List<Match> local, boolean uniqueClients, int[] remoteShards, List<SharedGroups.Group> groups) {

    /** One matching subscription of a client of this shard. */
    public record Match(String clientId, SubscriptionEntry entry) {}
}
