package io.pekquitto.shards.bridge;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * How long a bridge waits before it connects again: "decorrelated jitter", as Mosquitto's
 * {@code restart_timeout base cap}: each wait a random time between the base and three times the last
 * wait, at most the cap; back to the base once a link is up. Spread at random, bridges that lost the
 * same remote do not all come back at the same instant.
 */
final class Backoff {
    private final long baseMillis;
    private final long capMillis;
    /** Uniform in [0, 1). */
    private final DoubleSupplier random;
    private long lastMillis;

    Backoff(Duration base, Duration cap, DoubleSupplier random) {
        if (cap.compareTo(base) < 0) throw new IllegalArgumentException("cap " + cap + " below base " + base);
        this.baseMillis = base.toMillis();
        this.capMillis = cap.toMillis();
        this.random = random;
        this.lastMillis = baseMillis;
    }

    /** The wait before the next attempt. */
    Duration next() {
        long upper = Math.min(capMillis, Math.multiplyExact(lastMillis, 3));
        lastMillis = Math.min(capMillis, baseMillis + (long) (random.getAsDouble() * (upper - baseMillis)));
        return Duration.ofMillis(lastMillis);
    }

    /** A link is up: the next wait starts from the base again. */
    void reset() {
        lastMillis = baseMillis;
    }
}
