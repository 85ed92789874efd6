package io.pekquitto.cluster;

import io.pekquitto.shards.stats.SysExtras;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster's part of {@code $SYS/broker/}: {@code cluster/nodes} (members Up), {@code cluster/members}
 * (members in any state) and {@code cluster/unreachable}. {@link ClusterMembership} sets them on its
 * thread, the broker's figures read them on theirs.
 */
public final class ClusterFigures implements SysExtras {
    private volatile Map<String, String> topics = Map.of();

    @Override
    public Map<String, String> topics() {
        return topics;
    }

    void update(MemberList members) {
        var now = new LinkedHashMap<String, String>();  // published in this order
        now.put("cluster/nodes", Integer.toString(members.up()));
        now.put("cluster/members", Integer.toString(members.size()));
        now.put("cluster/unreachable", Integer.toString(members.unreachable()));
        topics = Collections.unmodifiableMap(now);
    }
}
