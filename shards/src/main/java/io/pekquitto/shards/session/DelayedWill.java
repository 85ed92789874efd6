package io.pekquitto.shards.session;

/**
 * A Will Message and its Will Delay Interval in seconds (3.1.3.2.2; 0 in 3.1.1 and when none was set): what a
 * connection leaves when it ends, and what its will keeper on another node holds while it is connected
 * ({@link HeldWills}).
 */
public record DelayedWill(Message message, long delaySeconds) {}
