package io.pekquitto.shards.session;

/**
 * How soon a client can take a shared subscription's next message (README.md, shared subscriptions under Shards): its
 * connection judges it, and its shard tells every peer when it changes. A group's pick prefers a READY
 * member, then a BUSY one, and gives a message to a STALLED member only when every member is stalled.
 */
public enum Availability {
    /** Its in-flight window has room and its socket is not congested. */
    READY,
    /** Its in-flight window is full, but it acknowledges: it takes the next message soon. */
    BUSY,
    /** It acknowledges nothing while messages pile up for it, its socket is congested, or it is offline. */
    STALLED;

    /** Whether a member this available is a better pick than one that is {@code other}. */
    public boolean betterThan(Availability other) {
        return ordinal() < other.ordinal();
    }
}
