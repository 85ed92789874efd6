package io.pekquitto.shards.routes;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.routing.SubscriptionTrie;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Shared subscriptions ({@code $share/group/filter}, 4.8.2) with their members on every shard. Every
 * shard holds the same membership (Join and Leave travel the reliable control plane), and the shard
 * where a message is published picks one member per matching group, round-robin, so each message goes
 * to exactly one member of each group. Groups are in a trie under their filter part, keyed by group
 * name; a group without members is removed.
 */
public final class SharedGroups {

    /** A member of a group: the client, the shard its session lives on, its subscription. */
    public record Member(String clientId, int shard, SubscriptionEntry entry) {}

    /** One group on one filter, with a round-robin cursor over its members. */
    public static final class Group {
        private final String name;
        private final String filter;
        /** Built once: every message delivered through the group carries it. */
        private final String sharedFilter;
        private final List<Member> members = new ArrayList<>(2);
        private int cursor;

        Group(String name, String filter) {
            this.name = name;
            this.filter = filter;
            this.sharedFilter = TopicFilter.SHARE_PREFIX + name + "/" + filter;
        }

        public String name() { return name; }

        public String filter() { return filter; }

        /** The shared filter as the client wrote it: {@code $share/name/filter}. */
        public String sharedFilter() { return sharedFilter; }

        public List<Member> members() { return members; }

        /** The member that is this client, or null. */
        public Member member(String clientId) {
            for (var member : members) if (member.clientId().equals(clientId)) return member;
            return null;
        }

        /** The next member in turn, skipping one client (the one a message bounced from), or null. */
        public Member next(String skipClientId) {
            for (int tries = 0; tries < members.size(); tries++) {
                cursor = (cursor + 1) % members.size();
                var member = members.get(cursor);
                if (!member.clientId().equals(skipClientId)) return member;
            }
            return null;
        }

        void put(Member member) {
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).clientId().equals(member.clientId())) {
                    members.set(i, member);
                    return;
                }
            }
            members.add(member);
        }

        boolean remove(String clientId) {
            return members.removeIf(m -> m.clientId().equals(clientId));
        }
    }

    private final SubscriptionTrie<String, Group> groups = new SubscriptionTrie<>();
    /** Every group, for restart resynchronisation (the trie only answers matches). */
    private final Set<Group> all = new HashSet<>();

    public void join(String group, String filter, Member member) {
        var existing = groups.get(filter, group);
        if (existing == null) {
            existing = new Group(group, filter);
            groups.put(filter, group, existing);
            all.add(existing);
        }
        existing.put(member);
    }

    public void leave(String group, String filter, String clientId) {
        var existing = groups.get(filter, group);
        if (existing == null) return;
        existing.remove(clientId);
        if (existing.members.isEmpty()) drop(existing);
    }

    private void drop(Group group) {
        groups.remove(group.filter, group.name);
        all.remove(group);
    }

    public Group get(String group, String filter) {
        return groups.get(filter, group);
    }

    /** The group of a shared filter as clients write it ({@code $share/group/filter}), or null. */
    public Group ofSharedFilter(String sharedFilter) {
        return get(TopicFilter.shareGroup(sharedFilter), TopicFilter.sharedFilterTopic(sharedFilter));
    }

    /** Visits every group whose filter matches the topic. */
    public void forEachMatch(String topic, Consumer<Group> consumer) {
        groups.forEachMatch(topic, (filter, name, group) -> consumer.accept(group));
    }

    /** Removes every member on a shard that restarted (it announces its members again). */
    public void forgetShard(int shard) {
        for (var group : new ArrayList<>(all)) {
            group.members.removeIf(m -> m.shard() == shard);
            if (group.members.isEmpty()) drop(group);
        }
    }

    /** Calls back with every (group, member) of members living on a shard. */
    public void forEachMemberOn(int shard, BiConsumer<Group, Member> consumer) {
        for (var group : all) {
            for (var member : group.members) {
                if (member.shard() == shard) consumer.accept(group, member);
            }
        }
    }
}
