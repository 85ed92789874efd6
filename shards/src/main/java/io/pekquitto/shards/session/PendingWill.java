package io.pekquitto.shards.session;

/**
 * A Will Message waiting out its Will Delay Interval (3.1.3.2.2): published at {@code publishAt} (the
 * broker's nanosecond clock) or when the session ends, whichever comes first, and not at all if the
 * client connects to the session again first ([MQTT-3.1.3-9]). {@code message} is the will as its
 * connection ended at {@code endedAt}.
 */
public record PendingWill(Message message, long endedAt, long publishAt) {

    /**
     * The will as published at {@code now}. Its Message Expiry Interval runs from its publication
     * (3.1.3.2.4), not from the end of the connection: a will waits out its delay before its lifetime
     * starts, and one published early, because its session ended first, starts it then.
     */
    public Message messageAt(long now) {
        long waited = now - endedAt;
        if (waited <= 0 || message.expiryDeadline() == Message.NEVER) return message;
        return new Message(message.topic(), message.payload(), message.qos(), message.retain(), message.properties(),
                message.sharedFilter(), message.expiryDeadline() + waited, now);
    }

    /** A will of a connection that ended at {@code now}, with its delay in seconds. */
    public static PendingWill delayed(Message message, long delaySeconds, long now) {
        return new PendingWill(message, now, now + delaySeconds * 1_000_000_000L);
    }
}
