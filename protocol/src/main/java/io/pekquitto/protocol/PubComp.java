package io.pekquitto.protocol;

import java.util.Objects;

/** PUBCOMP (3.7): the last packet of the QoS 2 exchange. In 3.1.1 the reason is always SUCCESS and there are no properties. */
public record PubComp(int packetId, ReasonCode reason, Properties properties) implements Packet {
    public PubComp {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (!reason.isAllowedIn(PacketType.PUBCOMP)) throw new IllegalArgumentException(reason + " in PUBCOMP");
    }

    /** The success case, with no properties. */
    public PubComp(int packetId) {
        this(packetId, ReasonCode.SUCCESS, Properties.NONE);
    }

    @Override
    public PacketType type() { return PacketType.PUBCOMP; }
}
