package io.pekquitto.cluster;

import io.pekquitto.shards.stats.SysExtras;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster's part of {@code $SYS/broker/}: {@code cluster/nodes} (members Up), {@code cluster/members}
 * (members in any state) and {@code cluster/unreachable}, which {@link ClusterMembership} sets, then the
 * totals of every node's counts ({@code cluster/clients/connected}...), which {@code ClusterCounts} sets; each
 * on its thread, the broker's figures read them on theirs.
 */
public final class ClusterFigures implements SysExtras {
    private volatile Map<String, String> membership = Map.of();
    private volatile Map<String, String> totals = Map.of();

    @Override
    public Map<String, String> topics() {
        var topics = new LinkedHashMap<>(membership);  // published in this order
        topics.putAll(totals);
        return Collections.unmodifiableMap(topics);
    }

    void update(MemberList members) {
        var now = new LinkedHashMap<String, String>();
        now.put("cluster/nodes", Integer.toString(members.up()));
        now.put("cluster/members", Integer.toString(members.size()));
        now.put("cluster/unreachable", Integer.toString(members.unreachable()));
        membership = Collections.unmodifiableMap(now);
    }

    /** The totals of the nodes' counts, from {@code ClusterCounts}. */
    public void totals(Map<String, String> topics) {
        totals = Map.copyOf(topics);
    }
}
