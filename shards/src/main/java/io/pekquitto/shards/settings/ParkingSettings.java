package io.pekquitto.shards.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * Connection parking ({@code pekquitto.parking}): whether a quiet connection gives up its actor, and
 * after how long a quiet spell.
 *
 * @param enabled   {@code pekquitto.parking.enabled}
 * @param idleGrace {@code pekquitto.parking.idle-grace}, longer than zero
 */
public record ParkingSettings(boolean enabled, Duration idleGrace) {
    public ParkingSettings {
        Objects.requireNonNull(idleGrace, "idleGrace");
        if (idleGrace.isNegative() || idleGrace.isZero()) {
            throw new IllegalArgumentException("parking.idle-grace must be longer than 0s, not " + idleGrace);
        }
    }
}
