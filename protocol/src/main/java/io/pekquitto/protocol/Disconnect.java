package io.pekquitto.protocol;

import java.util.Objects;

/** DISCONNECT (3.14). 3.1.1 has no reason code: a decoded one reads as NORMAL_DISCONNECTION. */
public record Disconnect(ReasonCode reason, Properties properties) implements Packet {
    public static final Disconnect NORMAL = new Disconnect(ReasonCode.NORMAL_DISCONNECTION, Properties.NONE);

    public Disconnect {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (!reason.isAllowedIn(PacketType.DISCONNECT)) throw new IllegalArgumentException(reason + " in DISCONNECT");
    }

    @Override
    public PacketType type() { return PacketType.DISCONNECT; }
}
