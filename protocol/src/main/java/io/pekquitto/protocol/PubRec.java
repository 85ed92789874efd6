package io.pekquitto.protocol;

import java.util.Objects;

/** PUBREC (3.5): the first answer to a QoS 2 PUBLISH. In 3.1.1 the reason is always SUCCESS and there are no properties. */
public record PubRec(int packetId, ReasonCode reason, Properties properties) implements Packet {
    public PubRec {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (!reason.isAllowedIn(PacketType.PUBREC)) throw new IllegalArgumentException(reason + " in PUBREC");
    }

    /** The success case, with no properties. */
    public PubRec(int packetId) {
        this(packetId, ReasonCode.SUCCESS, Properties.NONE);
    }

    @Override
    public PacketType type() { return PacketType.PUBREC; }
}
