package io.pekquitto.shards.routes;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.routing.SubscriptionTrie;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Shared subscriptions ({@code $share/group/filter}, 4.8.2) with their members on every shard. Every
 * shard holds the same membership (Join and Leave travel the reliable control plane), and the shard
 * where a message is published picks one member per matching group, round-robin, so each message goes
 * to exactly one member of each group. Groups are in a trie under their filter part, keyed by group
 * name; a group without members is removed.
 *
 * <p>The pick goes round-robin among the members that can take work now ({@link Availability#READY}:
 * attached to a connection whose in-flight window has room and whose socket is not congested); if none
 * can, among those whose window is full but who acknowledge ({@link Availability#BUSY}); only if every
 * member is {@link Availability#STALLED} (acknowledging nothing, socket congested, or offline) among
 * all, as if all could, and the message waits in that member's queue. So a member that stopped reading
 * holds its window and little more while another member makes progress. The member's shard tells every
 * peer when its availability changes, on the same control plane as Join and Leave, and only the
 * member's shard is believed: a change from the shard a member left is stale.
 */
public final class SharedGroups {

    /**
     * A member of a group: the client, the shard its session lives on, its subscription, and how soon
     * it can take the next message (as its shard last said).
     */
    public record Member(String clientId, int shard, SubscriptionEntry entry, Availability availability) {
        /** A member that can take work. */
        public Member(String clientId, int shard, SubscriptionEntry entry) {
            this(clientId, shard, entry, Availability.READY);
        }

        Member with(Availability now) {
            return now == availability ? this : new Member(clientId, shard, entry, now);
        }
    }

    /** One group on one filter, with a round-robin cursor over its members. */
    public static final class Group {
        private final String name;
        private final String filter;
        /** Built once: every message delivered through the group carries it. */
        private final String sharedFilter;
        private final List<Member> members = new ArrayList<>(2);
        /**
         * Per member (same index), the messages this shard gave it since its availability last changed,
         * while it was not READY: among stalled members, the one given fewest gets the next (as fair as
         * round-robin), and so among busy ones that last got better at the same time.
         */
        private int[] waiting = new int[2];
        /**
         * Per member, when it last got better (BUSY to READY, STALLED to BUSY), in this shard's count of
         * changes; 0 if never. Among busy members, the one that got better last gets the next: one that
         * drains its window does so again and again, one that stopped reading never, so while another
         * member makes progress a stuck one gets nothing more before it counts as stalled.
         */
        private long[] betterAt = new long[2];
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

        public List<Member> members() { return List.copyOf(members); }

        /** The member that is this client, or null. */
        public Member member(String clientId) {
            for (var member : members) if (member.clientId().equals(clientId)) return member;
            return null;
        }

        /**
         * The next member in turn among the most available ones, skipping one client (the one a message
         * bounced from), or null if the group has no other member.
         */
        public Member next(String skipClientId) {
            return next(skipClientId, Availability.STALLED);
        }

        /**
         * The next member in turn among the most available ones if they are better than {@code than}
         * (a member that turned out busier than the pick thought), skipping one client; null if none is.
         */
        public Member nextBetterThan(Availability than, String skipClientId) {
            return switch (than) {
                case READY -> null;
                case BUSY -> next(skipClientId, Availability.READY);
                case STALLED -> next(skipClientId, Availability.BUSY);
            };
        }

        /**
         * The first member in turn that is READY; else the BUSY one that got better last (of equals, the
         * one given fewest since its last change); else the STALLED one given fewest; none worse than
         * {@code worst}.
         */
        private Member next(String skipClientId, Availability worst) {
            int busy = -1;
            int stalled = -1;
            for (int tries = 0; tries < members.size(); tries++) {
                int at = (cursor + 1 + tries) % members.size();
                var member = members.get(at);
                if (member.clientId().equals(skipClientId)) continue;
                switch (member.availability()) {
                    case READY -> {
                        cursor = at;
                        return member;
                    }
                    case BUSY -> {
                        if (busy < 0 || betterAt[at] > betterAt[busy]
                                || betterAt[at] == betterAt[busy] && waiting[at] < waiting[busy]) busy = at;
                    }
                    case STALLED -> { if (stalled < 0 || waiting[at] < waiting[stalled]) stalled = at; }
                }
            }
            int at = busy >= 0 && worst != Availability.READY ? busy
                    : stalled >= 0 && worst == Availability.STALLED ? stalled : -1;
            if (at < 0) return null;
            cursor = at;
            waiting[at]++;
            return members.get(at);
        }

        /** Adds the member, or replaces the client's; true if it is new to the group. */
        boolean put(Member member) {
            for (int i = 0; i < members.size(); i++) {
                var previous = members.get(i);
                if (previous.clientId().equals(member.clientId())) {
                    if (previous.availability() != member.availability()) waiting[i] = 0;
                    members.set(i, member);
                    return false;
                }
            }
            if (waiting.length == members.size()) {
                waiting = Arrays.copyOf(waiting, members.size() * 2);
                betterAt = Arrays.copyOf(betterAt, members.size() * 2);
            }
            waiting[members.size()] = 0;
            betterAt[members.size()] = 0;
            members.add(member);
            return true;
        }

        /** The client's member on {@code shard} is now this available, this shard's change {@code change}; true if it changed. */
        boolean availability(String clientId, int shard, Availability now, long change) {
            for (int i = 0; i < members.size(); i++) {
                var member = members.get(i);
                if (member.clientId().equals(clientId) && member.shard() == shard && member.availability() != now) {
                    if (now.betterThan(member.availability())) betterAt[i] = change;
                    members.set(i, member.with(now));
                    waiting[i] = 0;
                    return true;
                }
            }
            return false;
        }

        boolean remove(String clientId) {
            for (int i = 0; i < members.size(); i++) {
                if (members.get(i).clientId().equals(clientId)) {
                    removeAt(i);
                    return true;
                }
            }
            return false;
        }

        /** Removes the members on {@code shard}, telling {@code removed} of each. */
        void removeOn(int shard, Consumer<Member> removed) {
            for (int i = members.size() - 1; i >= 0; i--) {
                var member = members.get(i);
                if (member.shard() == shard) {
                    removeAt(i);
                    removed.accept(member);
                }
            }
        }

        private void removeAt(int i) {
            members.remove(i);
            System.arraycopy(waiting, i + 1, waiting, i, members.size() - i);
            System.arraycopy(betterAt, i + 1, betterAt, i, members.size() - i);
        }
    }

    private final SubscriptionTrie<String, Group> groups = new SubscriptionTrie<>();
    /** Every group, for restart resynchronisation (the trie only answers matches). */
    private final Set<Group> all = new HashSet<>();
    /** The groups each member is in, for a change of how soon it can take work. */
    private final Map<String, List<Group>> groupsOf = new HashMap<>();
    /** Changes of availability applied here so far: the order in which members got better. */
    private long changes;

    public void join(String group, String filter, Member member) {
        var existing = groups.get(filter, group);
        if (existing == null) {
            existing = new Group(group, filter);
            groups.put(filter, group, existing);
            all.add(existing);
        }
        if (existing.put(member)) groupsOf.computeIfAbsent(member.clientId(), id -> new ArrayList<>(1)).add(existing);
    }

    public void leave(String group, String filter, String clientId) {
        var existing = groups.get(filter, group);
        if (existing == null || !existing.remove(clientId)) return;
        unindex(clientId, existing);
        if (existing.members.isEmpty()) drop(existing);
    }

    private void unindex(String clientId, Group group) {
        var of = groupsOf.get(clientId);
        if (of == null) return;
        of.remove(group);
        if (of.isEmpty()) groupsOf.remove(clientId);
    }

    /**
     * What {@code shard}, where the client's session lives, says of how soon it can take work; a member
     * the client has on another shard is not changed (its move has not reached this shard, or the
     * message is from the shard it left). True if a member changed.
     */
    /** Whether the client is a member of any group, on any shard. */
    public boolean isMember(String clientId) {
        return groupsOf.containsKey(clientId);
    }

    public boolean availability(String clientId, int shard, Availability now) {
        var of = groupsOf.get(clientId);
        if (of == null) return false;
        changes++;
        boolean changed = false;
        for (var group : of) changed |= group.availability(clientId, shard, now, changes);
        return changed;
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
            group.removeOn(shard, member -> unindex(member.clientId(), group));
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
