package io.pekquitto.shards.session;

/**
 * A Will Message waiting out its Will Delay Interval (3.1.3.2.2): published at {@code publishAt} (the
 * broker's nanosecond clock) or when the session ends, whichever comes first, and not at all if the
 * client connects to the session again first ([MQTT-3.1.3-9]).
 */
public record PendingWill(Message message, long publishAt) {

    /**
     * The will as published at {@code now}. Its Message Expiry Interval runs from its publication
     * (3.1.3.2.4), which {@code message} counts from {@code publishAt}: a will published before its
     * delay is over (its session ended first) starts its lifetime now.
     */
    public Message messageAt(long now) {
        long early = publishAt - now;
        if (early <= 0 || message.expiryDeadline() == Message.NEVER) return message;
        return new Message(message.topic(), message.payload(), message.qos(), message.retain(), message.properties(),
                message.sharedFilter(), message.expiryDeadline() - early);
    }

    /** A will of a connection that ended at {@code now}, with its delay in seconds. */
    public static PendingWill delayed(Message message, long delaySeconds, long now) {
        return new PendingWill(message, now + delaySeconds * 1_000_000_000L);
    }
}
