package io.pekquitto.shards.mesh;

import io.pekquitto.shards.session.Message;

/**
 * A published message on its way to another shard, in a data-plane batch; or a marker of a session crossing between
 * shards (SessionCrossings), which must keep its place among the messages.
 */
public sealed interface Forwarded {

    /** The message an item carries; null for a marker of a session crossing (never dropped). */
    static Message messageOf(Forwarded item) {
        if (item instanceof Published published) return published.message();
        if (item instanceof ToMember member) return member.message();
        if (item instanceof ToClient client) return client.message();
        if (item instanceof Retained retained) return retained.message();
        if (item instanceof Cut || item instanceof CutPassed) return null;
        throw new IllegalStateException("unhandled forwarded item " + item);  // a new variant says what it carries
    }

    /** A publish for the destination's own subscribers (and its copy of the retained messages). */
    record Published(String publisherId, Message message) implements Forwarded {}

    /**
     * A message for the member of a shared subscription that the sending shard picked. {@code relay}: the
     * store key under which the sender wrote it, when no publisher's acknowledgement waits for the
     * destination's write (the member moved, or another member's session ended); the destination deletes
     * it in the batch that takes the message on. Null otherwise. {@code redirected}: the member's shard
     * sent it on because the member could no longer take work; it is not sent on again for that.
     */
    record ToMember(String publisherId, Message message, String clientId, String sharedFilter, byte[] relay,
                    boolean redirected) implements Forwarded {}

    /**
     * A retained message the sender's node holds, sent to a shard of a node that joined after it: kept as the
     * destination's retained message for its topic unless it has a newer one; delivered to no one.
     */
    record Retained(Message message) implements Forwarded {}

    /**
     * A message for a client that followed its session to the destination (it bounced off a released connection, or it
     * was routed to the shard the session left before the sender cut its stream: SessionCrossings).
     */
    record ToClient(String clientId, Message message) implements Forwarded {}

    /** The sender heard that the client's session crossed: what it sends after this is the new shard's to deliver. */
    record Cut(String clientId) implements Forwarded {}

    /** From the shard the session left: every message of {@code peer} from before its cut was forwarded. */
    record CutPassed(String clientId, int peer) implements Forwarded {}
}
