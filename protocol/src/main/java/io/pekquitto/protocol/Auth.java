package io.pekquitto.protocol;

import java.util.Objects;

/** AUTH (3.15), MQTT 5 only: the extended authentication exchange. */
public record Auth(ReasonCode reason, Properties properties) implements Packet {
    public Auth {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (!reason.isAllowedIn(PacketType.AUTH)) throw new IllegalArgumentException(reason + " in AUTH");
    }

    @Override
    public PacketType type() { return PacketType.AUTH; }
}
