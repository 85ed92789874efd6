package io.pekquitto.shards.settings;

/**
 * What the broker does when a subscriber cannot keep up with what it is sent
 * ({@code pekquitto.slow-subscriber-policy}).
 */
public enum SlowSubscriberPolicy {
    /**
     * The subscriber's session queue grows to {@code max-queued-messages} / {@code max-queued-bytes},
     * then messages are dropped and counted; publishers never wait for one subscriber (as in Mosquitto
     * and HiveMQ).
     */
    QUEUE,
    /**
     * The publishers of a congested subscriber are slowed down instead (back-pressure, QoS 1 and 2
     * kept); a subscriber congested for 2 s is then treated as under {@link #QUEUE} until it drains.
     */
    THROTTLE;

    /** Parses the configuration value ({@code queue} or {@code throttle}). */
    public static SlowSubscriberPolicy parse(String text) {
        return switch (text) {
            case "queue" -> QUEUE;
            case "throttle" -> THROTTLE;
            default -> throw new IllegalArgumentException("slow-subscriber-policy must be queue or throttle, not " + text);
        };
    }
}
