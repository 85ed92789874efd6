package io.pekquitto.shards.mesh;

import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.List;
import java.util.Map;

/**
 * The control plane between shards (DESIGN.md, The mesh): low volume, never dropped, never reordered.
 * Each shard sends these to a peer with a plain local {@code tell}, which in one JVM is exactly a
 * reliable FIFO outbox per shard pair: Pekko delivers local messages in send order per sender-receiver
 * pair, the receiving mailbox is unbounded (enqueueing never blocks or drops), and a shard restarted
 * by its supervisor keeps its mailbox and its ActorRef. What a restart loses is the shard's own state;
 * {@link Hello} and {@link Resync} rebuild the peers' view of it. Pekko's
 * {@code actor.typed.delivery} would add a confirmation round trip per message and a resend after a
 * consumer restart, which here would replay the very message that made the shard fail.
 */
public sealed interface ControlMessage {

    /** The sender has (re)started with empty state: forget what it announced, and resynchronise it. */
    record Hello() implements ControlMessage {}

    /** What a peer announces to a (re)started shard: its filters, its shared members, the sessions it owns. */
    record Resync(List<String> filters, List<SharedJoin> members, List<String> ownedClientIds) implements ControlMessage {}

    /** A shared-subscription member, as announced in a {@link Resync}. */
    record SharedJoin(String group, String filter, SharedGroups.Member member) {}

    /** The sender has its first local subscriber to this filter. */
    record InterestAdded(String filter) implements ControlMessage {}

    /** The sender has no local subscriber to this filter any more. */
    record InterestRemoved(String filter) implements ControlMessage {}

    /** Answer {@link SyncAck} once everything sent before this has been applied (FIFO makes it a barrier). */
    record Sync(long token) implements ControlMessage {}

    record SyncAck(long token) implements ControlMessage {}

    /** To the client id's home shard: the sender has a CONNECT for this client id. */
    record Claim(String clientId) implements ControlMessage {}

    /** From the home shard to the session's owner: close the client's connection and hand the session to {@code to}. */
    record HandOver(String clientId, int to) implements ControlMessage {}

    /**
     * The answer to a claim: the session moving to the claimant, none (it does not exist), or
     * {@code local} when the claimant itself owns it.
     */
    record Handoff(String clientId, MigratedSession session, boolean local) implements ControlMessage {}

    /** To the home shard: the session ended on its owner (the sender). */
    record Ended(String clientId) implements ControlMessage {}

    /** A member joined a shared subscription. */
    record Joined(String group, String filter, SharedGroups.Member member) implements ControlMessage {}

    /** A member left a shared subscription. */
    record Left(String group, String filter, String clientId) implements ControlMessage {}

    /** A session moving between shards, with its subscriptions and delivery state. */
    record MigratedSession(Session session, Map<String, SubscriptionEntry> subscriptions,
                           long sessionExpiryInterval) {}
}
