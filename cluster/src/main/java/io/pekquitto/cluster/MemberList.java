package io.pekquitto.cluster;

import io.pekquitto.cluster.ClusterMember.Status;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cluster's members as this node's events tell them, and the line an operator reads for each change:
 * what happened to which node, and how many members there are after it. Plain Java, fed by
 * {@link ClusterMembership} with Pekko Cluster's membership and reachability events.
 */
final class MemberList {
    private final String self;
    private final Map<String, ClusterMember> members = new TreeMap<>();

    /** @param self this node's address, {@code host:port} */
    MemberList(String self) {
        this.self = self;
    }

    String joining(String address) {
        return status(address, Status.JOINING, "is joining");
    }

    String weaklyUp(String address) {
        return status(address, Status.WEAKLY_UP, "is up, weakly (the cluster has not converged)");
    }

    String up(String address) {
        return status(address, Status.UP, "is up");
    }

    String leaving(String address) {
        return status(address, Status.LEAVING, "is leaving");
    }

    String exiting(String address) {
        return status(address, Status.EXITING, "is exiting");
    }

    String downed(String address) {
        return status(address, Status.DOWN, "was downed");
    }

    String removed(String address) {
        members.remove(address);
        return line(address, "was removed");
    }

    String unreachable(String address) {
        return reachability(address, false, "is unreachable");
    }

    String reachable(String address) {
        return reachability(address, true, "is reachable again");
    }

    /** Every member, by address. */
    List<ClusterMember> members() {
        return List.copyOf(members.values());
    }

    /** Members that are Up, reachable or not: the cluster's size as an operator counts it. */
    int up() {
        return (int) members.values().stream().filter(member -> member.status() == Status.UP).count();
    }

    int unreachable() {
        return (int) members.values().stream().filter(member -> !member.reachable()).count();
    }

    int size() {
        return members.size();
    }

    private String status(String address, Status status, String what) {
        members.compute(address, (key, member) -> member == null
                ? new ClusterMember(address, status, true, address.equals(self)) : member.with(status));
        return line(address, what);
    }

    private String reachability(String address, boolean reachable, String what) {
        members.computeIfPresent(address, (key, member) -> member.reachable(reachable));
        return line(address, what);
    }

    private String line(String address, String what) {
        var unreachable = unreachable();
        return "Cluster: node " + address + (address.equals(self) ? " (this node) " : " ") + what + ": " + up() + " up of "
                + size() + " members" + (unreachable == 0 ? "" : ", " + unreachable + " unreachable");
    }
}
