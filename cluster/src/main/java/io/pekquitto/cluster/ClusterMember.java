package io.pekquitto.cluster;

import java.util.Objects;

/**
 * One node of the cluster as this node sees it.
 *
 * @param address   its cluster address, {@code host:port}
 * @param status    where it is in its life as a member
 * @param reachable whether this node's failure detector hears it
 * @param self      whether it is this node
 */
public record ClusterMember(String address, Status status, boolean reachable, boolean self) {

    /** Pekko Cluster's member states, but Removed: a removed node is no member any more. */
    public enum Status { JOINING, WEAKLY_UP, UP, LEAVING, EXITING, DOWN }

    public ClusterMember {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(status, "status");
    }

    ClusterMember with(Status newStatus) {
        return new ClusterMember(address, newStatus, reachable, self);
    }

    ClusterMember reachable(boolean nowReachable) {
        return new ClusterMember(address, status, nowReachable, self);
    }
}
