package io.pekquitto.shards.connection;

import java.time.Duration;

/**
 * The Keep Alive rule (3.1.2.10): a client that sends no packet for one and a half times its Keep
 * Alive is disconnected ([MQTT-3.1.2-24]); 0 turns the check off. Any packet counts, not only
 * PINGREQ. Times are the broker's nanosecond clock, passed in.
 */
final class KeepAlive {
    /** Seconds, not the limit in nanoseconds: an int keeps each connection's KeepAlive at 24 bytes, not 32. */
    private final int seconds;
    private long lastPacket;

    /** @param keepAliveSeconds the negotiated Keep Alive (the Server Keep Alive if one was sent) */
    KeepAlive(int keepAliveSeconds, long now) {
        this.seconds = keepAliveSeconds;
        this.lastPacket = now;
    }

    boolean isEnabled() {
        return seconds > 0;
    }

    private long limitNanos() {
        return seconds * 1_500_000_000L;
    }

    /** One and a half times the Keep Alive: the first check is due this long after CONNECT. */
    Duration limit() {
        return Duration.ofNanos(limitNanos());
    }

    /** When the client will have been silent for too long, or {@link Long#MAX_VALUE} if the check is off. */
    long deadline() {
        return isEnabled() ? lastPacket + limitNanos() : Long.MAX_VALUE;
    }

    void packetReceived(long now) {
        lastPacket = now;
    }

    /** How long until the client has been silent for too long; zero or less means it has. */
    Duration untilExpiry(long now) {
        return Duration.ofNanos(limitNanos() - (now - lastPacket));
    }
}
