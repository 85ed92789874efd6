package io.pekquitto.shards.settings;

/** What a subscriber that reads slower than messages arrive costs ({@code slow-subscriber-policy}). */
public enum SlowSubscriberPolicy {
    /** Its session queue grows to its limits, then drops and counts; publishers never wait for it. */
    QUEUE,
    /** The publishers are slowed down while it is congested (back-pressure); QoS 1/2 is kept. */
    THROTTLE
}
